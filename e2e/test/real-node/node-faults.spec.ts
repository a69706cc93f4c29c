// §14.2's Pod on a real node through what the node itself does to it: its sandbox's pause process killed
// (the kubelet recreates the sandbox and CNI ADD runs again on the frozen shadows, without a new prepare),
// the kubelet and containerd restarted under it (it keeps running), and a force delete (the kubelet still
// tears it down and the driver still releases it). The restarts come last: the kubelet deletes its node's
// ResourceSlices when it starts, and nothing else is scheduled there until both drivers publish theirs again.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { driverPrepareRequests } from '../../src/real-node/driver-metrics.ts';
import { type RealStack, startRealStack } from '../../src/real-node/real-stack.ts';
import { podSandboxes, runningSandbox } from '../../src/real-node/sandbox.ts';
import { deletePodAndWait } from '../../src/real-node/workload.ts';
import { pairsPod, setUpPairs, waitForPublishedRails } from '../../src/scenarios/gpu-nic-pairs.ts';
import { leftovers } from '../../src/stack/leftovers.ts';
import { WORKLOADS } from '../../src/stack/stack.ts';
import { attachmentsOf, containerOf, deleteWorkloadPods, expectNothingLeft, expectPairsOnTheirRails, rowsOf, runOnRealNode } from './real-pod.ts';

/** The UIDs of the SR-IOV driver's ResourceSlices. */
async function driverSliceUids(stack: RealStack): Promise<string[]> {
  const slices = await stack.admin.list<KubeObject & { spec: { driver: string } }>(resourceTypes.resourceSlice);
  return slices.items.filter((slice) => slice.spec.driver === DRIVER_NAME).map((slice) => slice.metadata.uid);
}

describe('§14.2’s Pod through sandbox, kubelet and containerd faults on a real node', () => {
  let stack: RealStack;
  let passed = true;

  /** What the Pod runs with now: its container, its sandbox and its attachments. */
  const runningState = async (name: string) => ({
    container: await containerOf(stack, name),
    sandbox: runningSandbox(stack.node, WORKLOADS, name),
    attachments: await attachmentsOf(stack, name),
  });

  /** The Pod keeps exactly `before` for `windowMs` (the kubelet relists every second and resyncs after a restart). */
  const expectSteady = async (name: string, before: Awaited<ReturnType<typeof runningState>>, windowMs: number): Promise<void> => {
    const until = Date.now() + windowMs;
    while (Date.now() < until) {
      expect({ container: await containerOf(stack, name), sandbox: runningSandbox(stack.node, WORKLOADS, name) }).toEqual({
        container: before.container,
        sandbox: before.sandbox,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(await runningState(name)).toEqual(before);
  };

  beforeAll(async () => {
    stack = await startRealStack({ log: (line) => process.stderr.write(`${line}\n`) });
    await setUpPairs(stack.admin, { whereaboutsConfig: stack.hardware.whereaboutsConfig });
  }, 600_000);

  afterEach(async () => {
    await deleteWorkloadPods(stack);
  }, 180_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 300_000);

  it('recreates a killed sandbox on the same shadows and addresses, without preparing again', async () => {
    passed = false;
    const name = 'sandbox-killed';
    expectPairsOnTheirRails(stack, await runOnRealNode(stack, pairsPod(name)));
    const before = await runningState(name);
    const prepares = await driverPrepareRequests(stack);
    const gpuPrepared = stack.gpu.prepared();
    expect(prepares).toEqual({ ok: 1 });

    process.kill(before.sandbox.pid, 'SIGKILL');
    await waitFor(
      'the kubelet to run a new sandbox and restart the container in it',
      async () => {
        const running = podSandboxes(stack.node, WORKLOADS, name).filter((sandbox) => sandbox.pid !== undefined);
        const container = await containerOf(stack, name);
        return running.length === 1 && running[0]?.id !== before.sandbox.id && container.id !== before.container.id && container.ready;
      },
      { timeoutMs: 90_000, describe: () => stack.logTail() },
    );
    const after = await runningState(name);
    expect(after.container.restartCount).toBe(before.container.restartCount + 1);
    // CNI ADD ran again in the new sandbox with the frozen shadows: same VFs, same addresses, same objects.
    expect(after.attachments).toEqual(before.attachments);
    expectPairsOnTheirRails(stack, await rowsOf(stack, name));
    expect(await driverPrepareRequests(stack)).toEqual(prepares);
    expect(stack.gpu.prepared()).toEqual(gpuPrepared);

    await deletePodAndWait(stack.admin, WORKLOADS, name);
    await expectNothingLeft(stack);
    passed = true;
  }, 240_000);

  it('tears a force-deleted Pod down: sandbox stopped, VFs back, shadows and allocations released', async () => {
    passed = false;
    const name = 'force-deleted';
    expectPairsOnTheirRails(stack, await runOnRealNode(stack, pairsPod(name)));
    const held = await leftovers(stack.leftoverSource);
    expect({
      shadows: held.shadows.length,
      allocations: held.whereaboutsAllocations.length,
      vfsAway: held.vfsAway.length,
      gpus: held.gpuClaims.length,
    }).toEqual({
      shadows: 2,
      allocations: 2,
      vfsAway: 2,
      gpus: 1,
    });

    stack.kubectl(['delete', 'pod', '-n', WORKLOADS, name, '--grace-period=0', '--force']);
    const gone = await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name }).then(
      () => false,
      () => true,
    );
    expect(gone).toBe(true);
    await waitFor(
      'the kubelet to stop the force-deleted Pod’s sandbox',
      () => Promise.resolve(podSandboxes(stack.node, WORKLOADS, name).every((sandbox) => sandbox.pid === undefined)),
      { timeoutMs: 60_000, describe: () => stack.logTail() },
    );
    await expectNothingLeft(stack);
    passed = true;
  }, 240_000);

  it('keeps the Pod running across a kubelet restart and a containerd restart, then releases everything', async () => {
    passed = false;
    const name = 'node-restarts';
    expectPairsOnTheirRails(stack, await runOnRealNode(stack, pairsPod(name)));
    const before = await runningState(name);
    const prepares = await driverPrepareRequests(stack);

    const slicesBefore = await driverSliceUids(stack);
    await stack.node.restartKubelet();
    await expectSteady(name, before, 15_000);
    // The kubelet deletes its node's ResourceSlices when it starts; the driver publishes its own again.
    await waitForPublishedRails(stack.admin);
    expect((await driverSliceUids(stack)).filter((uid) => slicesBefore.includes(uid))).toEqual([]);
    await stack.node.restartContainerd();
    await expectSteady(name, before, 10_000);
    // The kubelet's DRA checkpoint says the claim is prepared: neither restart prepares it again.
    expect(await driverPrepareRequests(stack)).toEqual(prepares);

    await deletePodAndWait(stack.admin, WORKLOADS, name);
    await expectNothingLeft(stack);
    passed = true;
  }, 240_000);
});
