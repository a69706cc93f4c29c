// The operator's /metrics as Prometheus scrapes it, from operators running against a real API server: a
// leader and a standby on one Lease, and one whose identity may only read, so its writes are refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createRoleBinding, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type Operator, type OperatorSettings, startOperator } from '../src/operator.ts';
import { draReference, nodePolicyBody, sriovNetworkBody } from './cluster-objects.ts';
import { sample, scrape } from './metrics-exposition.ts';

const OPERATOR_NS = 'sriov-network-operator';
const READ_ONLY_USER = 'operator-read-only';

let cp: ControlPlane;
let client: KubeClient;
const operators: Operator[] = [];
const logger = pino({ level: 'silent' });

function settings(identity: string | undefined): OperatorSettings {
  return {
    operatorNamespace: OPERATOR_NS,
    resourcePrefix: 'openshift.io',
    draEnabled: true,
    mode: 'standalone',
    healthPort: 0,
    ...(identity === undefined
      ? {}
      : {
          leaderElection: {
            namespace: OPERATOR_NS,
            name: 'node-policy-operator',
            identity,
            // A slow renew on a loaded machine must not move the Lease: failover here is a stop, which releases it.
            leaseDurationMs: 15_000,
            renewDeadlineMs: 10_000,
            retryPeriodMs: 2_000,
          },
        }),
  };
}

async function start(identity: string | undefined, operatorClient: KubeClient): Promise<Operator> {
  const operator = await startOperator(settings(identity), operatorClient, logger);
  operators.push(operator);
  return operator;
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

describe('operator /metrics', () => {
  it('counts the leader’s reconciliations after a policy change, shows its queues, and marks the leader 1 and the standby 0', async () => {
    const leader = await start('operator-a', cp.clientFor('operator-a', ['system:masters']));
    await waitFor('operator-a leading', () => Promise.resolve(leader.isLeading()), { timeoutMs: 15_000 });
    const standby = await start('operator-b', cp.clientFor('operator-b', ['system:masters']));
    await waitFor('the leader’s controllers synced', async () => (await fetch(`http://127.0.0.1:${String(leader.healthPort)}/readyz`)).status === 200, {
      timeoutMs: 15_000,
    });

    const policySuccesses = async (): Promise<number> =>
      sample(await scrape(leader), 'sriov_dra_operator_reconciles_total', { controller: 'node-policy', result: 'success' }) ?? 0;
    // The first reconciliation after the informers listed.
    await waitFor('the first node-policy reconciliation', async () => (await policySuccesses()) >= 1, { timeoutMs: 15_000 });
    const before = await policySuccesses();
    await client.create(
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
        resourceName: 'sriov_vfs',
        nodeSelector: { rail: 'true' },
        numVfs: 4,
        nicSelector: { pfNames: ['ens1f0'] },
        dra: draReference(OPERATOR_NS, 'rail-a-net'),
      }),
      { namespace: OPERATOR_NS },
    );
    await waitFor('a node-policy reconciliation of the change', async () => (await policySuccesses()) > before, { timeoutMs: 15_000 });

    const leading = await scrape(leader);
    const waiting = await scrape(standby);
    expect(sample(leading, 'sriov_dra_operator_leader')).toBe(1);
    expect(sample(waiting, 'sriov_dra_operator_leader')).toBe(0);
    // Both queues drained: the change was handled.
    expect(leading.split('\n').filter((line) => line.startsWith('sriov_dra_operator_work_queue_depth'))).toEqual([
      'sriov_dra_operator_work_queue_depth{controller="SriovNetwork"} 0',
      'sriov_dra_operator_work_queue_depth{controller="node-policy"} 0',
    ]);
    // The standby runs no controller, so it reconciled nothing and has no queue.
    expect(sample(waiting, 'sriov_dra_operator_reconciles_total', { controller: 'node-policy', result: 'success' })).toBeUndefined();
    expect(sample(waiting, 'sriov_dra_operator_work_queue_depth', { controller: 'node-policy' })).toBeUndefined();

    await leader.stop();
    await waitFor('the standby takes the Lease', () => Promise.resolve(standby.isLeading()), { timeoutMs: 20_000 });
    expect(sample(await scrape(standby), 'sriov_dra_operator_leader')).toBe(1);
  }, 90_000);

  it('counts a refused write as a failed reconciliation under its controller and error code', async () => {
    await client.create(resourceTypes.clusterRole, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: READ_ONLY_USER },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      ],
    });
    await createRoleBinding(client, {
      metadata: { name: READ_ONLY_USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READ_ONLY_USER },
      subjects: [{ kind: 'User', name: READ_ONLY_USER, apiGroup: 'rbac.authorization.k8s.io' }],
    });
    // Alone, so no other operator writes what it is refused; no Lease, it leads at once.
    for (const operator of operators.splice(0)) await operator.stop();
    const readOnly = await start(undefined, cp.clientFor(READ_ONLY_USER));
    await client.create(resourceTypes.sriovNetwork, sriovNetworkBody('team-a', 'refused', { resourceName: 'rail' }), { namespace: 'team-a' });

    await waitFor(
      'the refused reconciliation counted',
      async () => (sample(await scrape(readOnly), 'sriov_dra_operator_reconcile_errors_total', { controller: 'SriovNetwork', code: 'ApiForbidden' }) ?? 0) >= 1,
      { timeoutMs: 15_000 },
    );
    expect(sample(await scrape(readOnly), 'sriov_dra_operator_reconciles_total', { controller: 'SriovNetwork', result: 'error' })).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('serves the Node.js process metrics next to its own', async () => {
    const operator = operators.find((candidate) => candidate.isLeading()) ?? (await start(undefined, cp.clientFor('operator-c', ['system:masters'])));
    const exposition = await scrape(operator);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect({ name, value: sample(exposition, name) }).toEqual({ name, value: expect.any(Number) });
    }
    expect(exposition).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    expect(exposition).toContain('# TYPE sriov_dra_operator_reconciles_total counter');
  }, 30_000);
});
