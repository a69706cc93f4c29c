import { describe, expect, it } from '@jest/globals';
import { vfConfigFromOpaque } from './opaque-vf-config.ts';

const claim = { kind: 'ResourceClaim', namespace: 'ai-workloads', name: 'pairs-x' };

describe('vfConfigFromOpaque', () => {
  it('decodes this driver\u2019s parameters', () => {
    const parameters = { apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1', kind: 'VfConfig', netAttachDefName: 'rail-a-net' };
    expect(vfConfigFromOpaque({ driver: 'sriovnetwork.k8snetworkplumbingwg.io', parameters }, claim)).toEqual({ ok: true, value: parameters });
  });

  it('leaves other drivers\u2019 entries alone', () => {
    expect(vfConfigFromOpaque({ driver: 'gpu.example.com', parameters: null }, claim)).toEqual({ ok: true, value: null });
  });

  it.each([null, undefined, 7, 'x', [], {}, { driver: 5 }])('returns a typed error naming the claim for the entry %p', (entry) => {
    const result = vfConfigFromOpaque(entry as never, claim);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.object]).toEqual(['InvalidVfConfig', claim]);
  });

  it('rejects malformed parameters of this driver, naming the claim', () => {
    const result = vfConfigFromOpaque({ driver: 'sriovnetwork.k8snetworkplumbingwg.io', parameters: { kind: 'VfConfig' } }, claim);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.object]).toEqual(['InvalidVfConfig', claim]);
  });
});

describe('vfConfigFromOpaque: an entry without a driver name', () => {
  it('says so', () => {
    const result = vfConfigFromOpaque({} as never, claim);
    expect(result.ok ? result : result.error.detail).toBe('an opaque config entry has no driver name');
  });
});
