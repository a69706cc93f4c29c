// Every shared contract fixture, read the way the operator reads it: spec.dra blocks through admission
// validation and into a generated DeviceAttributes that the driver-side contract must accept; existing
// DeviceAttributes and SriovResourcePolicy objects as the reconciler reads them back to compare.
import { describe, expect, it } from '@jest/globals';
import { type Result, ok, validateDeviceAttributes, validateNodePolicyDra, validateSriovResourcePolicy } from '@sriov-dra/contract';
import { type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { buildPolicyDeviceAttributes } from '../src/dra/policy-device-attributes.ts';

type Consumer = (fixture: Fixture) => Result<unknown>;

const POLICY_UID = '7d9c1e2f-3a4b-4c5d-8e6f-708192a3b4c5';

const consumers: Record<FixtureKind, Consumer | { notConsumed: string }> = {
  'node-policy-dra': (fixture) => {
    const dra = validateNodePolicyDra(fixture.input, { kind: 'SriovNetworkNodePolicy', namespace: 'sriov-network-operator', name: 'rail-a' });
    if (!dra.ok || !expectsValid(fixture)) return dra;
    expect(dra.value).toEqual({ customAttributes: fixture.expect['customAttributes'], sriovNetwork: fixture.expect['sriovNetwork'] });
    // Here a SriovNetwork renders to a NAD of the same name in its own namespace.
    const generated = buildPolicyDeviceAttributes({
      policyUID: POLICY_UID,
      namespace: 'sriov-network-operator',
      dra: dra.value,
      resourceName: 'openshift.io/rail_a',
      sourceNad: dra.value.sriovNetwork,
    });
    // The expected object is assembled from the fixture's stated values and literal names only.
    const reference = fixture.expect['sriovNetwork'] as { name: string; namespace: string } | null;
    expect(generated).toEqual({
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'DeviceAttributes',
      metadata: {
        name: 'dra-policy-7d9c1e2f-3a4b-4c5d-8e6f-708192a3b4c5-attrs',
        namespace: 'sriov-network-operator',
        labels: { 'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator', 'sriovnetwork.openshift.io/node-policy-uid': POLICY_UID },
      },
      spec: {
        attributes: {
          'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/rail_a' },
          ...(fixture.expect['customAttributes'] as object),
          ...(reference === null
            ? {}
            : {
                'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: reference.name },
                'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: reference.namespace },
              }),
        },
      },
    });
    // What the operator publishes, the driver must read back as the same reference.
    const asDriverSeesIt = validateDeviceAttributes(generated);
    expect(asDriverSeesIt.ok ? asDriverSeesIt.value.nadReference : asDriverSeesIt.error.message).toEqual(reference);
    return ok(generated);
  },
  'device-attributes': (fixture) => {
    const object = validateDeviceAttributes(fixture.input);
    if (object.ok && expectsValid(fixture)) {
      expect({ attributes: object.value.attributes, nadReference: object.value.nadReference }).toEqual({
        attributes: fixture.expect['attributes'],
        nadReference: fixture.expect['nadReference'],
      });
    }
    return object;
  },
  'sriov-resource-policy': (fixture) => validateSriovResourcePolicy(fixture.input),
  'binding-annotation': { notConsumed: 'runtime metadata between the driver and Multus' },
  'managed-networks-registry': { notConsumed: 'runtime metadata between the driver and Multus' },
  'generated-selection': { notConsumed: 'runtime metadata between the driver and Multus' },
  identity: { notConsumed: 'attachment identity exists only at prepare time' },
  'vf-config': { notConsumed: 'workload and DeviceClass configuration; the operator does not render it' },
  render: { notConsumed: 'shadow rendering happens in the driver; the operator never sees a PCI address' },
};

describe('node-policy-operator reads the shared contract fixtures', () => {
  it.each(loadFixtures().map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const consumer = consumers[fixture.kind];
    if ('notConsumed' in consumer) {
      expect(consumer.notConsumed).not.toBe('');
      return;
    }
    const result = consumer(fixture);
    if (expectsValid(fixture)) expect(result.ok ? 'valid' : result.error.message).toBe('valid');
    else expect(result.ok ? 'valid' : result.error.code).toBe(expectedError(fixture));
  });
});
