import { describe, expect, it } from '@jest/globals';
import { buildPolicyDeviceAttributes, policyDeviceAttributesName } from './policy-device-attributes.ts';

const LABELS = { 'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator', 'sriovnetwork.openshift.io/node-policy-uid': 'uid-a' };

describe('buildPolicyDeviceAttributes', () => {
  it('publishes the compatibility resourceName, the custom attributes and the resolved NAD pair in one object', () => {
    expect(
      buildPolicyDeviceAttributes({
        policyUID: 'uid-a',
        namespace: 'sriov-network-operator',
        dra: {
          customAttributes: { 'example.com/rail': { string: 'a' }, 'example.com/numaNode': { int: 0 } },
          sriovNetwork: { namespace: 'team-a', name: 'rail-a' },
        },
        resourceName: 'openshift.io/rail_a',
        sourceNad: { name: 'rail-a', namespace: 'team-b' },
      }),
    ).toEqual({
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'DeviceAttributes',
      metadata: { name: 'dra-policy-uid-a-attrs', namespace: 'sriov-network-operator', labels: LABELS },
      spec: {
        attributes: {
          'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/rail_a' },
          'example.com/rail': { string: 'a' },
          'example.com/numaNode': { int: 0 },
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a' },
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'team-b' },
        },
      },
    });
  });

  it('publishes no NAD pair until the reference resolves, and no resource-pool label', () => {
    const object = buildPolicyDeviceAttributes({
      policyUID: 'uid-a',
      namespace: 'ops',
      dra: { customAttributes: {}, sriovNetwork: null },
      resourceName: 'rail_a',
      sourceNad: null,
    });
    expect(object).toMatchObject({ metadata: { labels: LABELS }, spec: { attributes: { 'k8s.cni.cncf.io/resourceName': { string: 'rail_a' } } } });
    expect(Object.keys((object['spec'] as { attributes: object }).attributes)).toEqual(['k8s.cni.cncf.io/resourceName']);
    expect(Object.keys((object['metadata'] as { labels: object }).labels)).toEqual(Object.keys(LABELS));
  });

  it('names the object after the policy UID, so a recreated policy gets a new object', () => {
    expect(policyDeviceAttributesName('0f6c1a52-7b7e-4b43-9d1e-5a0e3c2b1d00')).toBe('dra-policy-0f6c1a52-7b7e-4b43-9d1e-5a0e3c2b1d00-attrs');
  });
});
