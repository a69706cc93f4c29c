// Scenario (a), §14.1: one NAD for a whole DeviceClass. The class carries the VfConfig naming the
// template, the policy only advertises one PF's VFs, and a Pod asking for one VF of the class comes up
// with it on dra0 and a host-local address of the template's subnet; deleting it returns the lease.
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createOneNetwork, oneNetworkPod } from '../src/scenarios/one-network.ts';
import { type Stack, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, expectOneVfOnTemplate, runPod } from './pod-lifecycle.ts';

describe('one network for a DeviceClass (§14.1)', () => {
  let stack: Stack;
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await createOneNetwork(stack.admin, { hostLocalDir: stack.node.hostLocalDir });
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('attaches the allocated VF of the advertised PF through the class’s template, with host-local on its subnet', async () => {
    passed = false;
    const { rows } = await runPod(stack, oneNetworkPod('one-vf'));
    await expectOneVfOnTemplate(stack.admin, rows, stack.node);
    passed = true;
  }, 120_000);

  it('releases everything when the Pod goes, the host-local lease included', async () => {
    passed = false;
    await deletePod(stack, 'one-vf');
    await expectNothingLeft(stack);
    passed = true;
  }, 120_000);
});
