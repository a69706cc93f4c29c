// Scenario (e): the driver and the Multus daemon restarted mid-flight, as SIGKILLs (a node losing the
// container), never a graceful stop. A Pod whose prepare finds the driver gone, and one whose CNI ADD
// is made while the daemon is gone, each come up once the component is back, with nothing leaked by the failed
// attempts; a Pod running across both restarts is released completely.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { waitFor } from '@sriov-dra/k8s/testing';
import { createDirectRailMapping, createPairsTemplate, createPcieDeviceClasses, pairsPod, waitForPublishedRails } from '../src/scenarios/gpu-nic-pairs.ts';
import { leftovers } from '../src/stack/leftovers.ts';
import { type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, expectPairsOnTheirRails, runPod } from './pod-lifecycle.ts';

describe('driver and daemon restarts mid-flight', () => {
  let stack: Stack;
  let passed = true;

  /** Waits until the kubelet has logged `line` for `pod`: the call it describes was made and failed. */
  const kubeletSaw = (pod: string, line: string) =>
    waitFor(`the kubelet to see ${pod} ${line}`, () => Promise.resolve(stack.logTail().includes(`${WORKLOADS}/${pod}: ${line}`)), {
      timeoutMs: 60_000,
      describe: () => stack.logTail(),
    });

  beforeAll(async () => {
    stack = await startStack();
    await createPcieDeviceClasses(stack.admin);
    await createPairsTemplate(stack.admin);
    await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
    // The driver is killed below with its devices published: the scheduler allocates from the slices alone.
    await waitForPublishedRails(stack.admin);
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('runs a Pod whose prepare found the driver killed, once the driver is back', async () => {
    passed = false;
    await stack.driver.kill();
    const running = runPod(stack, pairsPod('prepared-across-a-driver-kill'));
    await kubeletSaw('prepared-across-a-driver-kill', `NodePrepareResources on ${DRIVER_NAME} failed`);
    await stack.startDriver();
    expectPairsOnTheirRails(stack, (await running).rows);
    // The node has two GPUs: the next Pod needs them back.
    await deletePod(stack, 'prepared-across-a-driver-kill');
    await expectNothingLeft(stack);
    passed = true;
  }, 180_000);

  it('runs a Pod whose CNI ADD was made with the daemon killed, once the daemon is back, leaking no address', async () => {
    passed = false;
    await stack.daemon.kill();
    const running = runPod(stack, pairsPod('added-across-a-daemon-kill'));
    // The upstream shim keeps trying the daemon's socket rather than failing the ADD: the ADD is in flight
    // while the shim process runs with the daemon down.
    await kubeletSaw('added-across-a-daemon-kill', 'creating the sandbox, CNI ADD');
    const shim = path.join(stack.node.cni.cniBinDir, 'multus-shim');
    await waitFor('the shim to be running the ADD', () => Promise.resolve(spawnSync('pgrep', ['-f', shim]).status === 0), { timeoutMs: 30_000 });
    await stack.daemon.start();
    expectPairsOnTheirRails(stack, (await running).rows);
    // One address per rail and one primary address: the failed attempts left nothing of their own.
    const left = await leftovers(stack);
    expect({ whereabouts: left.whereaboutsAllocations.length, leases: left.hostLocalLeases.length, shadows: left.shadows.length }).toEqual({
      whereabouts: 2,
      leases: 1,
      shadows: 2,
    });
    passed = true;
  }, 180_000);

  it('releases a Pod completely after the driver and the daemon were killed again while it ran', async () => {
    passed = false;
    await stack.driver.kill();
    await stack.startDriver();
    await stack.daemon.kill();
    await stack.daemon.start();
    expect((await leftovers(stack)).shadows).toHaveLength(2);
    await deletePod(stack, 'added-across-a-daemon-kill');
    await expectNothingLeft(stack);
    passed = true;
  }, 180_000);
});
