import { describe, expect, it } from '@jest/globals';
import { buildPoolDeviceAttributes, poolName } from './legacy-pool.ts';

describe('poolName (upstream resourceNameToDeviceClassName)', () => {
  it.each([
    ['intel_nic', 'intel-nic'],
    ['Mlx_CX6', 'mlx-cx6'],
    ['_edge_', 'edge'],
    ['__edge__', 'edge'],
    ['a.b/c', 'abc'],
    ['___', 'sriov'],
    ['Äpfel_nic', 'pfel-nic'],
  ])('%s → %s', (resourceName, pool) => {
    expect(poolName(resourceName)).toBe(pool);
  });
});

describe('buildPoolDeviceAttributes', () => {
  it('reproduces upstream’s pool object for intel_nic (its TestBuildDeviceAttributesCR expectations)', () => {
    expect(buildPoolDeviceAttributes({ namespace: 'sriov-network-operator', resourcePrefix: 'openshift.io', resourceName: 'intel_nic' })).toEqual({
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'DeviceAttributes',
      metadata: {
        name: 'intel-nic-attrs',
        namespace: 'sriov-network-operator',
        labels: { 'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator', 'sriovnetwork.openshift.io/resource-pool': 'intel-nic' },
      },
      spec: { attributes: { 'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/intel_nic' } } },
    });
  });

  it('uses the bare resourceName without a prefix', () => {
    expect(buildPoolDeviceAttributes({ namespace: 'ops', resourcePrefix: '', resourceName: 'nic' })).toMatchObject({
      spec: { attributes: { 'k8s.cni.cncf.io/resourceName': { string: 'nic' } } },
    });
  });
});
