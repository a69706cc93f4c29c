import { describe, expect, it } from '@jest/globals';
import type { DeviceAttributeValue } from '@sriov-dra/contract';
import { resolveNetworkTemplate } from './network-template.ts';

// The keys as the device snapshot holds them: qualified names in the driver's domain.
const NAME = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
const NAMESPACE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace';
const POD_NAMESPACE = 'ai-workloads';
const DEVICE = { kind: 'ResourceClaim', namespace: POD_NAMESPACE, name: 'trainer-0-nics', field: 'result nic-0 worker-a/0000-03-00-1' };

type Attributes = Record<string, DeviceAttributeValue>;
interface VfReference {
  readonly netAttachDefName: string;
  readonly netAttachDefNamespace: string;
}

const attributes = (name?: DeviceAttributeValue, namespace?: DeviceAttributeValue, extra: Attributes = {}): Attributes => ({
  ...extra,
  ...(name === undefined ? {} : { [NAME]: name }),
  ...(namespace === undefined ? {} : { [NAMESPACE]: namespace }),
});
const vf = (netAttachDefName = '', netAttachDefNamespace = ''): VfReference => ({ netAttachDefName, netAttachDefNamespace });
const NO_VF = vf();

const resolve = (deviceAttributes: Attributes, vfConfig: VfReference) =>
  resolveNetworkTemplate({ deviceAttributes, vfConfig, podNamespace: POD_NAMESPACE, object: DEVICE });

describe('resolveNetworkTemplate (§5.2)', () => {
  describe('resolves', () => {
    it.each<[string, Attributes, VfReference, { namespace: string; name: string }]>([
      ['a per-device reference with its namespace', attributes({ string: 'rail-a' }, { string: 'infra' }), NO_VF, { namespace: 'infra', name: 'rail-a' }],
      ['a per-device name alone in the Pod namespace', attributes({ string: 'rail-a' }), NO_VF, { namespace: 'ai-workloads', name: 'rail-a' }],
      [
        'a per-device name with an empty namespace in the Pod namespace',
        attributes({ string: 'rail-a' }, { string: '' }),
        NO_VF,
        { namespace: 'ai-workloads', name: 'rail-a' },
      ],
      [
        'the per-device reference over a VfConfig naming the same pair',
        attributes({ string: 'rail-a' }, { string: 'infra' }),
        vf('rail-a', 'infra'),
        { namespace: 'infra', name: 'rail-a' },
      ],
      ['both Pod-relative, compared once resolved', attributes({ string: 'rail-a' }), vf('rail-a'), { namespace: 'ai-workloads', name: 'rail-a' }],
      [
        'a Pod-relative device reference and a VfConfig naming the Pod namespace explicitly: the same concrete pair',
        attributes({ string: 'rail-a' }),
        vf('rail-a', 'ai-workloads'),
        { namespace: 'ai-workloads', name: 'rail-a' },
      ],
      [
        'an explicit device namespace equal to the Pod namespace and a Pod-relative VfConfig',
        attributes({ string: 'rail-a' }, { string: 'ai-workloads' }),
        vf('rail-a'),
        { namespace: 'ai-workloads', name: 'rail-a' },
      ],
      ['the VfConfig reference when the device has none', {}, vf('uniform-net', 'infra'), { namespace: 'infra', name: 'uniform-net' }],
      ['a VfConfig name alone in the Pod namespace', {}, vf('uniform-net'), { namespace: 'ai-workloads', name: 'uniform-net' }],
      [
        'the VfConfig when the device carries only ordinary custom attributes',
        { 'example.com/rail': { string: 'a' } },
        vf('uniform-net'),
        { namespace: 'ai-workloads', name: 'uniform-net' },
      ],
    ])('%s', (_, deviceAttributes, vfConfig, expected) => {
      expect(resolve(deviceAttributes, vfConfig)).toEqual({ ok: true, value: expected });
    });
  });

  describe('refuses', () => {
    it.each<[string, Attributes, VfReference, string, string]>([
      [
        'a device name and a VfConfig namespace are never combined: Pod-relative device, VfConfig in infra',
        attributes({ string: 'rail-a' }),
        vf('rail-a', 'infra'),
        'ConflictingNetAttachDefReference',
        'the device attributes select ai-workloads/rail-a but the VfConfig selects infra/rail-a',
      ],
      [
        'an explicit device namespace against a Pod-relative VfConfig',
        attributes({ string: 'rail-a' }, { string: 'infra' }),
        vf('rail-a'),
        'ConflictingNetAttachDefReference',
        'the device attributes select infra/rail-a but the VfConfig selects ai-workloads/rail-a',
      ],
      [
        'a VfConfig naming another template: no tenant override of the physical mapping',
        attributes({ string: 'rail-a' }, { string: 'infra' }),
        vf('rail-b', 'infra'),
        'ConflictingNetAttachDefReference',
        'the device attributes select infra/rail-a but the VfConfig selects infra/rail-b',
      ],
      [
        'a namespace-only device reference, even with a valid VfConfig to fall back to',
        attributes(undefined, { string: 'infra' }),
        vf('uniform-net'),
        'InvalidNetAttachDefReference',
        'is set without',
      ],
      ['an empty device name, even with a VfConfig', attributes({ string: '' }), vf('uniform-net'), 'InvalidNetAttachDefReference', 'is empty'],
      ['a device name of the wrong type, even with a VfConfig', attributes({ int: 7 }), vf('uniform-net'), 'InvalidNetAttachDefReference', 'must be a string'],
      [
        'a device name over the 64-character attribute limit, never truncated',
        attributes({ string: `rail-${'a'.repeat(60)}` }),
        vf('uniform-net'),
        'InvalidNetAttachDefReference',
        'at most 64 characters',
      ],
      [
        'a device namespace that is not a namespace name',
        attributes({ string: 'rail-a' }, { string: 'Infra' }),
        vf('uniform-net'),
        'InvalidNetAttachDefReference',
        'is not a namespace name',
      ],
      [
        'a device namespace of the wrong type',
        attributes({ string: 'rail-a' }, { bool: true }),
        vf('uniform-net'),
        'InvalidNetAttachDefReference',
        'must be a string',
      ],
      ['neither a device reference nor a VfConfig one', {}, NO_VF, 'MissingNetworkTemplate', 'neither the device attributes nor the VfConfig'],
      [
        'ordinary custom attributes alone',
        { 'example.com/rail': { string: 'a' } },
        NO_VF,
        'MissingNetworkTemplate',
        'neither the device attributes nor the VfConfig',
      ],
      ['a VfConfig namespace without a name', {}, vf('', 'infra'), 'InvalidVfConfig', 'netAttachDefNamespace infra is set without netAttachDefName'],
      [
        'a VfConfig namespace without a name beside a device reference',
        attributes({ string: 'rail-a' }),
        vf('', 'infra'),
        'InvalidVfConfig',
        'netAttachDefNamespace infra is set without netAttachDefName',
      ],
    ])('%s', (_, deviceAttributes, vfConfig, code, detail) => {
      const result = resolve(deviceAttributes, vfConfig);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe(code);
      expect(result.error.detail).toContain(detail);
      expect(result.error.object).toEqual(DEVICE);
      expect(result.error.remedy).toMatch(/\S/);
    });
  });

  it('never takes the namespace of the object that carried the reference: only the Pod namespace fills an omitted one', () => {
    // The same snapshot resolves against whichever verified Pod consumes the device.
    const deviceAttributes = attributes({ string: 'rail-a' });
    expect(resolveNetworkTemplate({ deviceAttributes, vfConfig: NO_VF, podNamespace: 'team-b' })).toEqual({
      ok: true,
      value: { namespace: 'team-b', name: 'rail-a' },
    });
    expect(resolveNetworkTemplate({ deviceAttributes, vfConfig: NO_VF, podNamespace: 'team-c' })).toEqual({
      ok: true,
      value: { namespace: 'team-c', name: 'rail-a' },
    });
  });
});
