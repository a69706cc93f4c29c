// sriov_dra_operator_work_queue_depth while work waits, on the real operator against a real API server.
// Its SriovNetwork controller handles no key before every informer it reads has listed, and its identity
// may not list Namespaces at first: the SriovNetworks' keys queue up behind that informer, one per
// network, until a ClusterRoleBinding lets it list and the queue drains. No timing decides what is seen.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createRoleBinding, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type Operator, startOperator } from '../src/operator.ts';
import { sriovNetworkBody } from './cluster-objects.ts';
import { sample, scrape } from './metrics-exposition.ts';

const OPERATOR_NS = 'sriov-network-operator';
const WORKLOAD_NS = 'team-a';
const OPERATOR_USER = 'operator-without-namespaces';
/** SriovNetworks created before the operator starts: the keys its SriovNetwork queue must hold. */
const NETWORKS = 12;

type NetworkObject = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

let cp: ControlPlane;
let operator: Operator | undefined;

beforeAll(async () => {
  cp = await startControlPlane();
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, OPERATOR_NS);
  await createNamespace(admin, WORKLOAD_NS);
  // Everything the standalone operator does, but Namespaces.
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: OPERATOR_USER },
    rules: [
      { apiGroups: ['sriovnetwork.openshift.io', 'sriovnetwork.k8snetworkplumbingwg.io', 'k8s.cni.cncf.io', 'events.k8s.io'], resources: ['*'], verbs: ['*'] },
      { apiGroups: [''], resources: ['nodes', 'events'], verbs: ['*'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await createRoleBinding(admin, {
    metadata: { name: OPERATOR_USER },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OPERATOR_USER },
    subjects: [{ kind: 'User', name: OPERATOR_USER, apiGroup: 'rbac.authorization.k8s.io' }],
  });
  for (let index = 0; index < NETWORKS; index += 1) {
    await admin.create(resourceTypes.sriovNetwork, sriovNetworkBody(WORKLOAD_NS, `net-${String(index)}`, { resourceName: 'rail' }), { namespace: WORKLOAD_NS });
  }
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await cp.stop();
});

describe('sriov_dra_operator_work_queue_depth', () => {
  it('counts the keys waiting while reconciliation is held, and returns to 0 once they are handled', async () => {
    operator = await startOperator(
      { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', draEnabled: true, mode: 'standalone', healthPort: 0 },
      cp.clientFor(OPERATOR_USER),
      pino({ level: 'silent' }),
    );
    const running = operator;
    const depth = async (): Promise<number | undefined> => sample(await scrape(running), 'sriov_dra_operator_work_queue_depth', { controller: 'SriovNetwork' });

    await waitFor(`${String(NETWORKS)} SriovNetwork keys queued`, async () => (await depth()) === NETWORKS, { timeoutMs: 20_000 });
    // Held: nothing was handled, so every network is still waiting.
    const held = await scrape(running);
    expect(sample(held, 'sriov_dra_operator_reconciles_total', { controller: 'SriovNetwork', result: 'success' })).toBeUndefined();
    expect(sample(held, 'sriov_dra_operator_work_queue_depth', { controller: 'SriovNetwork' })).toBe(NETWORKS);

    await cp.adminClient.create(resourceTypes.clusterRole, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${OPERATOR_USER}-namespaces` },
      rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }],
    });
    await createRoleBinding(cp.adminClient, {
      metadata: { name: `${OPERATOR_USER}-namespaces` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${OPERATOR_USER}-namespaces` },
      subjects: [{ kind: 'User', name: OPERATOR_USER, apiGroup: 'rbac.authorization.k8s.io' }],
    });

    await waitFor(
      'every network Ready',
      async () =>
        (await cp.adminClient.list<NetworkObject>(resourceTypes.sriovNetwork, { namespace: WORKLOAD_NS })).items.filter((network) =>
          network.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'),
        ).length === NETWORKS,
      { timeoutMs: 45_000 },
    );
    // The Ready writes wake the networks once more; the queue settles empty.
    await waitFor('the SriovNetwork queue drained', async () => (await depth()) === 0, { timeoutMs: 15_000 });
    expect(sample(await scrape(running), 'sriov_dra_operator_reconciles_total', { controller: 'SriovNetwork', result: 'success' })).toBeGreaterThanOrEqual(
      NETWORKS,
    );
  }, 120_000);
});
