import { describe, expect, it } from '@jest/globals';
import { type ShadowPlanInput, planShadow } from './shadow-plan.ts';

const INPUT: ShadowPlanInput = {
  node: { name: 'worker-a', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' },
  pod: { namespace: 'ai-workloads', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555' },
  claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  driver: 'sriovnetwork.k8snetworkplumbingwg.io',
  pool: 'worker-a',
  device: '0000-03-00-1',
  pciAddress: '0000:03:00.1',
  interface: 'net1',
  source: {
    namespace: 'ai-workloads',
    name: 'rail-a-net',
    uid: '5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93',
    resourceVersion: '4711',
    config: '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}',
  },
};

const codeOf = (input: ShadowPlanInput): string => {
  const planned = planShadow(input);
  return planned.ok ? 'planned' : planned.error.code;
};

describe('planShadow', () => {
  it('plans the shadow of a valid binding, with the PCI address in canonical form', () => {
    const planned = planShadow({ ...INPUT, pciAddress: '0000:03:00.1' });
    expect(planned.ok ? [planned.value.pciAddress, planned.value.attachmentID] : planned.error.message).toEqual([
      '0000:03:00.1',
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
  });

  it('returns the first refusal: identity, then PCI address, then configuration, then the NAD', () => {
    expect(codeOf({ ...INPUT, pool: '' })).toBe('InvalidIdentityTuple');
    expect(codeOf({ ...INPUT, pool: '', pciAddress: '03:00.1' })).toBe('InvalidIdentityTuple');
    expect(codeOf({ ...INPUT, pciAddress: '03:00.1' })).toBe('InvalidPciAddress');
    expect(codeOf({ ...INPUT, source: { ...INPUT.source, config: '{"cniVersion":"1.0.0","type":"macvlan"}' } })).toBe('UnsupportedCniTopology');
    expect(codeOf({ ...INPUT, interface: 'not an interface name' })).toBe('InvalidBindingAnnotation');
  });
});
