// Two operator instances against one API server: only the Lease holder runs the controllers, and when it
// stops the standby takes over and reconciles what changed meanwhile.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type Operator, type OperatorSettings, startOperator } from '../src/operator.ts';

const OPERATOR_NS = 'sriov-network-operator';

let cp: ControlPlane;
let client: KubeClient;
const operators: Operator[] = [];

// A slow renew on a loaded machine must not move the Lease: failover here is a stop, which releases it.
function settings(identity: string): OperatorSettings {
  return {
    operatorNamespace: OPERATOR_NS,
    resourcePrefix: 'openshift.io',
    draEnabled: true,
    mode: 'standalone',
    healthPort: 0,
    leaderElection: { namespace: OPERATOR_NS, name: 'node-policy-operator', identity, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  };
}

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
  await createNamespace(client, 'team-a');
}, 120_000);

afterAll(async () => {
  for (const operator of operators) await operator.stop();
  await cp.stop();
});

async function nadExists(name: string): Promise<boolean> {
  try {
    await client.get(resourceTypes.networkAttachmentDefinition, { namespace: 'team-a', name });
    return true;
  } catch (error) {
    if (isApiError(error, 'NotFound')) return false;
    throw error;
  }
}

async function createNetwork(name: string): Promise<void> {
  await client.create(
    resourceTypes.sriovNetwork,
    { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name, namespace: 'team-a' }, spec: { resourceName: 'rail' } },
    { namespace: 'team-a' },
  );
}

describe('operator', () => {
  it('runs the controllers on the Lease holder only, and fails over to the standby', async () => {
    const logger = pino({ level: 'silent' });
    const first = await startOperator(settings('operator-a'), cp.clientFor('operator-a', ['system:masters']), logger);
    operators.push(first);
    await waitFor('operator-a leading', () => Promise.resolve(first.isLeading()), { timeoutMs: 15_000 });
    const second = await startOperator(settings('operator-b'), cp.clientFor('operator-b', ['system:masters']), logger);
    operators.push(second);
    expect((await fetch(`http://127.0.0.1:${String(second.healthPort)}/readyz`)).status).toBe(200);

    await createNetwork('before-failover');
    await waitFor('the leader provisions the NAD', () => nadExists('before-failover'), { timeoutMs: 15_000 });
    expect(second.isLeading()).toBe(false);

    await first.stop();
    expect(first.isLeading()).toBe(false);
    await createNetwork('after-failover');
    await waitFor('the standby takes over and provisions', () => nadExists('after-failover'), { timeoutMs: 20_000 });
    expect(second.isLeading()).toBe(true);
    await waitFor('the new leader ready', async () => (await fetch(`http://127.0.0.1:${String(second.healthPort)}/readyz`)).status === 200, {
      timeoutMs: 15_000,
    });
  }, 60_000);
});
