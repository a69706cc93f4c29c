// Scenario (g): 50 Pods churned through the stack, 8 alive at a time, each getting one VF on its rail.
// Every Pod comes up and goes, and nothing is leaked: no Pod, claim, shadow, finalizer, address or lease,
// every VF back on the host. How fast is measured in e2e/bench/churn.bench.ts, never here.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@sriov-dra/k8s/testing';
import { createOneVfTemplate, runChurn, workloadLeftovers } from '../src/scenarios/churn.ts';
import { createDirectRailMapping, createPcieDeviceClasses } from '../src/scenarios/gpu-nic-pairs.ts';
import { type Stack, startStack } from '../src/stack/stack.ts';
import { expectNothingLeft } from './pod-lifecycle.ts';

const PODS = 50;

describe('50-Pod churn', () => {
  let stack: Stack;
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await createPcieDeviceClasses(stack.admin);
    await createOneVfTemplate(stack.admin);
    await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('brings up and releases every Pod, leaking nothing', async () => {
    passed = false;
    const result = await runChurn(stack, { mode: 'managed', pods: PODS, concurrency: 8 });
    expect(result.readyMs.filter((ms) => Number.isFinite(ms))).toHaveLength(PODS);
    // The resourceclaim controller deletes each generated claim after its Pod, asynchronously.
    let workloads = await workloadLeftovers(stack.admin);
    await waitFor(
      'the generated claims to go',
      async () => {
        workloads = await workloadLeftovers(stack.admin);
        return workloads.length === 0;
      },
      { timeoutMs: 30_000 },
    ).catch(() => undefined);
    expect(workloads).toEqual([]);
    await expectNothingLeft(stack);
    passed = true;
  }, 600_000);
});
