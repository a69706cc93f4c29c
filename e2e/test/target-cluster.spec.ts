// The stack against a cluster it did not start, reached through nothing but a kubeconfig file, as
// `SRIOV_DRA_E2E_TARGET=kubeconfig` runs every scenario: here a control plane started apart from the stack
// stands in for that cluster (no endpoint routing, its CA key and processes out of the stack's reach), with
// a second node of its own. The stack must refuse the cluster when its names are taken, put nothing on the
// other node, run §14.2's Pod, and leave the cluster exactly as it found it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { createDirectRailMapping, createPairsTemplate, createPcieDeviceClasses, pairsPod } from '../src/scenarios/gpu-nic-pairs.ts';
import { type Footprint, footprint } from '../src/stack/cluster-footprint.ts';
import { OPERATOR_NAMESPACE, type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, expectPairsOnTheirRails, runPod } from './pod-lifecycle.ts';

const OTHER_NODE = 'gpu-node-7';

describe('the stack on a cluster named by a kubeconfig', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let before: Footprint;
  let stack: Stack | undefined;
  let passed = true;

  beforeAll(async () => {
    cp = await startControlPlane({ controllerManager: true, scheduler: true });
    admin = cp.adminClient;
    await createReadyNode(admin, OTHER_NODE);
    before = await footprint(admin);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop(!passed);
    await cp.stop();
  }, 240_000);

  it('refuses a cluster where its workloads namespace is taken, and creates nothing', async () => {
    await createNamespace(admin, WORKLOADS);
    await expect(startStack({ target: { kind: 'kubeconfig', files: [cp.kubeconfig] } })).rejects.toThrow(
      `the target cluster already has Namespace ${WORKLOADS}: the stack creates these and deletes them afterwards`,
    );
    expect(await footprint(admin)).toEqual({ ...before, Namespace: [...before.Namespace, WORKLOADS].sort() });
    await admin.delete(resourceTypes.namespace, { name: WORKLOADS });
    await waitFor(`namespace ${WORKLOADS} to be deleted`, async () => !(await footprint(admin)).Namespace.includes(WORKLOADS), { timeoutMs: 60_000 });
  }, 120_000);

  it('runs §14.2’s Pod with both pairs on their rails, nothing of the stack on the cluster’s other node', async () => {
    passed = false;
    stack = await startStack({ target: { kind: 'kubeconfig', files: [cp.kubeconfig] } });
    await createPcieDeviceClasses(stack.admin);
    await createPairsTemplate(stack.admin);
    await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
    const { rows } = await runPod(stack, pairsPod('pairs-on-target'));
    expectPairsOnTheirRails(stack, rows);
    // The DaemonSet controller and the scheduler of the cluster placed nothing of the stack's elsewhere.
    expect((await admin.list(resourceTypes.pod, { fieldSelector: `spec.nodeName=${OTHER_NODE}` })).items.map((pod) => pod.metadata.name)).toEqual([]);
    await deletePod(stack, 'pairs-on-target');
    await expectNothingLeft(stack);
    passed = true;
  }, 300_000);

  it('leaves the cluster as it found it: namespaces, nodes and their Leases, CRDs, RBAC, DeviceClasses, ResourceSlices', async () => {
    passed = false;
    // A Pod still running when the stack stops is run down first, releasing what it holds; a SriovNetwork
    // keeps the operator's finalizer until the operator, still running then, has removed its NAD.
    const current = stack;
    if (current === undefined) throw new Error('the stack did not start');
    await runPod(current, pairsPod('left-running'));
    await current.admin.create(
      resourceTypes.sriovNetwork,
      {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetwork',
        metadata: { name: 'storage-net' },
        spec: { resourceName: 'storage_vfs', networkNamespace: WORKLOADS, ipam: '{"type":"host-local","subnet":"10.77.0.0/24"}' },
      },
      { namespace: OPERATOR_NAMESPACE },
    );
    await waitFor(
      'the operator to provision storage-net and hold it with its finalizer',
      async () => {
        const network = await current.admin.get(resourceTypes.sriovNetwork, { namespace: OPERATOR_NAMESPACE, name: 'storage-net' });
        const nad = await current.admin.get(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, name: 'storage-net' }).catch(() => undefined);
        return (network.metadata.finalizers ?? []).length > 0 && nad !== undefined;
      },
      { timeoutMs: 60_000, describe: () => current.logTail() },
    );
    stack = undefined;
    await current.stop();
    expect(await footprint(admin)).toEqual(before);
    passed = true;
  }, 300_000);
});
