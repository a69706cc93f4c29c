// Scenario (c), §14.3: the two rails through the SR-IOV network operator's objects. Two node policies
// share one resourceName; each one's spec.dra names its SriovNetwork. The node-policy operator (started
// from the chart's Deployment, on the chart's RBAC) generates the source NADs and the driver's
// DeviceAttributes and SriovResourcePolicy, and §14.2's Pod comes up with each VF on its own rail. The
// chart's validating webhook admits the policies and refuses spec.dra on the default one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { RAILS, createPairsTemplate, createPcieDeviceClasses, pairsPod } from '../src/scenarios/gpu-nic-pairs.ts';
import { createOperatorRails, defaultPolicyRefusal, reportNodeState, waitOperatorRailsReady } from '../src/scenarios/operator-rails.ts';
import { targetsLocalControlPlane } from '../src/stack/cluster.ts';
import { OPERATOR_NAMESPACE, type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, expectPairsOnTheirRails, runPod } from './pod-lifecycle.ts';

interface AttributeSet extends KubeObject {
  readonly spec: { readonly attributes: Readonly<Record<string, { readonly string?: string }>> };
}

describe('two rails through SriovNetworkNodePolicy and SriovNetwork (§14.3)', () => {
  let stack: Stack;
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await reportNodeState(stack.admin, OPERATOR_NAMESPACE, stack.node);
    await createPcieDeviceClasses(stack.admin);
    await createPairsTemplate(stack.admin);
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('generates each rail’s source NAD and attribute set from the policies, both DRAConfigurationReady', async () => {
    passed = false;
    await createOperatorRails(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
    await waitOperatorRailsReady(stack.admin, OPERATOR_NAMESPACE, () => stack.logTail());
    for (const rail of RAILS) {
      const nad = await stack.admin.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, {
        namespace: WORKLOADS,
        name: rail.template,
      });
      const config = JSON.parse(nad.spec.config) as { type?: string; name?: string; ipam?: { network_name?: string; range?: string } };
      expect({ type: config.type, name: config.name, network: config.ipam?.network_name, range: config.ipam?.range }).toEqual({
        type: 'sriov',
        name: rail.template,
        network: rail.network,
        range: rail.range,
      });
    }
    // What the driver reads: per-policy attribute sets naming the generated NADs, not the operator's input keys.
    const sets = (await stack.admin.list<AttributeSet>(resourceTypes.deviceAttributes, { namespace: OPERATOR_NAMESPACE })).items;
    const references = sets
      .map(
        (set) =>
          `${set.spec.attributes[`${DRIVER_NAME}/netAttachDefNamespace`]?.string ?? ''}/${set.spec.attributes[`${DRIVER_NAME}/netAttachDefName`]?.string ?? ''}`,
      )
      .filter((reference) => reference !== '/')
      .sort();
    expect(references).toEqual(RAILS.map((rail) => `${WORKLOADS}/${rail.template}`));
    expect(sets.flatMap((set) => Object.keys(set.spec.attributes)).filter((key) => key.startsWith('sriovnetwork.openshift.io/sriovNetwork'))).toEqual([]);
    passed = true;
  }, 120_000);

  // A target cluster's API server cannot call a webhook on this machine: the stack installs it only locally.
  (targetsLocalControlPlane() ? it : it.skip)(
    'has the chart’s admission webhook, called through its Service, refuse spec.dra on the default policy',
    async () => {
      const refusal = await defaultPolicyRefusal(stack.admin, OPERATOR_NAMESPACE, RAILS[0]);
      expect(refusal).toContain('admission webhook "validate-sriovnetworknodepolicy.sriovnetwork.openshift.io" denied the request');
      expect(refusal).toContain('DRABlockOnDefaultPolicy');
    },
  );

  it('runs §14.2’s Pod with each VF on the rail its policy maps, no rail named by the workload', async () => {
    passed = false;
    const { rows } = await runPod(stack, pairsPod('pairs-through-the-operator'));
    expectPairsOnTheirRails(stack, rows);
    passed = true;
  }, 120_000);

  it('releases everything when the Pod goes', async () => {
    passed = false;
    await deletePod(stack, 'pairs-through-the-operator');
    await expectNothingLeft(stack);
    passed = true;
  }, 120_000);
});
