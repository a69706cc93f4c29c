import { describe, expect, it } from '@jest/globals';
import { DRIVER_API_VERSION, attributeKeys } from '@sriov-dra/contract';
import { mergeDeviceAttributes } from './device-attribute-merge.ts';

function object(name: string, attributes: Record<string, unknown>): unknown {
  return { apiVersion: DRIVER_API_VERSION, kind: 'DeviceAttributes', metadata: { name, namespace: 'dra-driver-sriov' }, spec: { attributes } };
}
const ref = (name: string, namespace?: string) => ({
  [attributeKeys.netAttachDefName]: { string: name },
  ...(namespace === undefined ? {} : { [attributeKeys.netAttachDefNamespace]: { string: namespace } }),
});

describe('mergeDeviceAttributes', () => {
  it('merges custom keys in name order, last writer wins', () => {
    const merged = mergeDeviceAttributes([
      object('b', { 'example.com/x': { int: 2 } }),
      object('a', { 'example.com/x': { int: 1 }, 'example.com/y': { bool: false } }),
    ]);
    expect(merged).toEqual({
      ok: true,
      value: { attributes: { 'example.com/x': { int: 2 }, 'example.com/y': { bool: false } }, nadReference: null, sources: ['a', 'b'] },
    });
  });

  it('accepts the same reference from several objects', () => {
    const merged = mergeDeviceAttributes([object('a', ref('rail-a-net', 'infra')), object('b', ref('rail-a-net', 'infra'))]);
    expect(merged.ok && merged.value.nadReference).toEqual({ name: 'rail-a-net', namespace: 'infra' });
  });

  it('treats an empty namespace and an absent one alike', () => {
    const merged = mergeDeviceAttributes([object('a', ref('rail-a-net', '')), object('b', ref('rail-a-net'))]);
    expect(merged.ok && merged.value.nadReference).toEqual({ name: 'rail-a-net', namespace: null });
  });

  it.each([
    ['different names', ref('rail-a-net'), ref('rail-b-net')],
    ['defaulted versus explicit namespace', ref('rail-a-net'), ref('rail-a-net', 'ai-workloads')],
    ['different namespaces', ref('rail-a-net', 'infra'), ref('rail-a-net', 'other')],
  ])('rejects %s, naming both objects', (_case, first, second) => {
    const merged = mergeDeviceAttributes([object('rail-a', first), object('rail-z', second)]);
    expect(merged.ok).toBe(false);
    if (merged.ok) return;
    expect(merged.error.code).toBe('ConflictingNetAttachDefReference');
    expect(merged.error.detail).toContain('rail-a');
    expect(merged.error.detail).toContain('rail-z');
  });

  it('never assembles a reference from a name in one object and a namespace in another', () => {
    const merged = mergeDeviceAttributes([object('a', ref('rail-a-net')), object('b', { [attributeKeys.netAttachDefNamespace]: { string: 'infra' } })]);
    expect(merged.ok ? 'accepted' : merged.error.code).toBe('InvalidNetAttachDefReference');
  });

  it('treats a bare name and its driver-domain form as one key, last writer winning', () => {
    const merged = mergeDeviceAttributes([object('a', { tier: { int: 1 } }), object('b', { 'sriovnetwork.k8snetworkplumbingwg.io/tier': { int: 2 } })]);
    expect(merged.ok ? merged.value.attributes : merged.error.message).toEqual({ 'sriovnetwork.k8snetworkplumbingwg.io/tier': { int: 2 } });
  });

  it('keeps a "__proto__" attribute as an own key through the merge', () => {
    const merged = mergeDeviceAttributes([object('a', JSON.parse('{"__proto__":{"string":"kept"}}') as Record<string, unknown>)]);
    expect(merged.ok ? Object.entries(merged.value.attributes) : merged.error.message).toEqual([
      ['sriovnetwork.k8snetworkplumbingwg.io/__proto__', { string: 'kept' }],
    ]);
  });
});

describe('mergeDeviceAttributes: the device attribute budget', () => {
  // A device publishing 28 discovered attributes and 2 capacities leaves room for 2 custom attributes.
  const discovered = Array.from({ length: 28 }, (_unused, index) => `sriovnetwork.k8snetworkplumbingwg.io/hw${index}`);
  const device = { pool: 'worker-a', name: '0000-03-00-1', attributeNames: discovered, capacityNames: ['memory', 'example.com/slots'] };
  const custom = (count: number) => Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`example.com/c${index}`, { int: index }]));

  it('accepts a device that reaches exactly 32 attributes and capacities', () => {
    const merged = mergeDeviceAttributes([object('a', custom(1)), object('b', { 'example.com/c1': { int: 9 } })], device);
    expect(merged.ok ? Object.keys(merged.value.attributes) : merged.error.message).toEqual(['example.com/c0', 'example.com/c1']);
  });

  it('rejects one more, naming the device and the count, and drops nothing to fit', () => {
    const merged = mergeDeviceAttributes([object('a', custom(2)), object('b', { 'example.com/extra': { bool: true } })], device);
    expect(merged.ok ? 'accepted' : [merged.error.code, merged.error.object]).toEqual([
      'AttributeBudgetExceeded',
      { kind: 'Device', name: 'worker-a/0000-03-00-1' },
    ]);
    expect(merged.ok ? '' : merged.error.detail).toContain('33');
  });

  it('counts a key shared by several objects once', () => {
    const merged = mergeDeviceAttributes([object('a', custom(2)), object('b', custom(2))], device);
    expect(merged.ok ? 'accepted' : merged.error.code).toBe('accepted');
  });

  it('rejects a custom attribute that would overwrite a discovered one', () => {
    const merged = mergeDeviceAttributes([object('a', { hw3: { string: 'configured' } })], device);
    expect(merged.ok ? 'accepted' : [merged.error.code, merged.error.object]).toEqual([
      'ReservedDRAAttribute',
      { kind: 'DeviceAttributes', namespace: 'dra-driver-sriov', name: 'a' },
    ]);
  });

  it('compares discovered and custom names in qualified form, however either is spelled', () => {
    const bare = { ...device, attributeNames: ['hw3'] };
    const merged = mergeDeviceAttributes([object('a', { 'sriovnetwork.k8snetworkplumbingwg.io/hw3': { int: 1 } })], bare);
    expect(merged.ok ? 'accepted' : merged.error.code).toBe('ReservedDRAAttribute');
  });

  it('checks custom attributes alone when no device is given', () => {
    const merged = mergeDeviceAttributes([
      object('a', custom(20)),
      object('b', Object.fromEntries(Array.from({ length: 13 }, (_u, i) => [`example.org/d${i}`, { int: i }]))),
    ]);
    expect(merged.ok ? 'accepted' : merged.error.code).toBe('AttributeBudgetExceeded');
  });
});

describe('mergeDeviceAttributes: what a refusal says', () => {
  const dra = (name: string) => ({ kind: 'DeviceAttributes', namespace: 'dra-driver-sriov', name });

  it('names both references of a conflict, a defaulted namespace as the Pod’s', () => {
    const merged = mergeDeviceAttributes([object('rail-a', ref('rail-a-net')), object('rail-z', ref('rail-z-net', 'infra'))]);
    expect(merged.ok ? merged : [merged.error.detail, merged.error.object]).toEqual([
      'DeviceAttributes rail-a selects <pod namespace>/rail-a-net but rail-z selects infra/rail-z-net',
      dra('rail-z'),
    ]);
  });

  it('names the attribute and the device whose discovered attribute a custom one would overwrite', () => {
    const device = { pool: 'worker-a', name: '0000-3b-01-0', attributeNames: ['example.com/numaNode'], capacityNames: [] };
    const merged = mergeDeviceAttributes([object('forged', { 'example.com/numaNode': { int: 1 } })], device);
    expect(merged.ok ? merged : [merged.error.code, merged.error.detail, merged.error.object]).toEqual([
      'ReservedDRAAttribute',
      'attribute example.com/numaNode is published by discovery for device worker-a/0000-3b-01-0',
      dra('forged'),
    ]);
  });

  it('names the objects when custom attributes alone exceed the budget', () => {
    const many = (prefix: string) => Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`example.com/${prefix}${String(index)}`, { int: index }]));
    const merged = mergeDeviceAttributes([object('b', many('b')), object('a', many('a'))]);
    expect(merged.ok ? merged : [merged.error.code, merged.error.object]).toEqual(['AttributeBudgetExceeded', { kind: 'DeviceAttributes', name: 'a,b' }]);
  });
});
