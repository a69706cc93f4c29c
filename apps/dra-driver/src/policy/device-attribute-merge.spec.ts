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
});
