// Cold and steady-state reconciliation of the node-policy DRA generator at scale (bench-cluster.ts: 200
// policies × 50 nodes), as the controller runs it: from the operator's informers, with the chart's default
// request budget. Cold: the caches' first lists, then a reconciliation that generates every object from
// none. Steady: once the caches hold the cold run's writes, a reconciliation with nothing changed, which
// must make no request at all. Requests are counted at the API server (audit log, the operator's user).
import type { KubeObject } from '@sriov-dra/k8s';
import { resourceTypes } from '@sriov-dra/k8s';
import type { ControlPlane } from '@sriov-dra/k8s/testing';
import { reconcileNodePolicies } from '../src/dra/node-policy-reconciler.ts';
import { startCachedReconciler } from '../test/dra/cached-reconciler.ts';
import { type BenchCluster, NODES, OPERATOR_NS, OPERATOR_USER, PFS_PER_NODE, POLICIES, VFS_PER_PF, startBenchCluster } from './bench-cluster.ts';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);
const READ_VERBS = new Set(['get', 'list']);

type Context = BenchCluster;

export const setup = startBenchCluster;

export async function teardown({ cp }: Context): Promise<void> {
  await cp.stop();
}

/** The operator's writes and reads (GET, LIST; watches aside) since audit event `seen`. */
async function requestsSince(cp: ControlPlane, seen: number): Promise<{ writes: number; reads: number; lists: number; total: number }> {
  const requests = (await cp.auditLog?.requests()) ?? [];
  const mine = requests.slice(seen).filter((event) => event.user.username === OPERATOR_USER);
  return {
    writes: mine.filter((event) => WRITE_VERBS.has(event.verb)).length,
    reads: mine.filter((event) => READ_VERBS.has(event.verb)).length,
    lists: mine.filter((event) => event.verb === 'list').length,
    total: requests.length,
  };
}

export const benchmarks = [
  {
    name: `node-policy DRA reconciliation from the informers, ${String(POLICIES)} policies × ${String(NODES)} nodes (${String(PFS_PER_NODE)} PFs × ${String(VFS_PER_PF)} VFs each, every policy on every node, each referencing a ready SriovNetwork), the chart's default QPS/burst: cold (caches' first lists, then every object generated), then steady state; requests counted at the API server (audit log)`,
    once: async ({ cp, options, qps, burst }: Context) => {
      const before = (await cp.auditLog?.requests())?.length ?? 0;
      const syncStarted = performance.now();
      const reconciler = await startCachedReconciler(options, cp.adminClient);
      const syncMs = performance.now() - syncStarted;
      try {
        const afterSync = await requestsSince(cp, before);
        const coldStarted = performance.now();
        const cold = await reconcileNodePolicies(reconciler.options);
        const coldMs = performance.now() - coldStarted;
        const afterCold = await requestsSince(cp, afterSync.total);
        if (cold.failures.length > 0) throw new Error(`cold reconciliation failed: ${cold.failures.join('; ')}`);
        const applied = [...cold.plan.verdicts.values()].filter((verdict) => verdict.reason === 'DRAConfigurationApplied').length;

        // As the running controller is woken only after its own writes have come back through the watches.
        await reconciler.settled();
        const settled = await requestsSince(cp, afterCold.total);
        const steadyStarted = performance.now();
        const steady = await reconcileNodePolicies(reconciler.options);
        const steadyMs = performance.now() - steadyStarted;
        const afterSteady = await requestsSince(cp, settled.total);
        const stored = await cp.adminClient.get<KubeObject & { spec: { configs: unknown[] } }>(resourceTypes.sriovResourcePolicy, {
          namespace: OPERATOR_NS,
          name: 'node-0',
        });
        return {
          qps,
          burst,
          cacheSyncMs: syncMs,
          cacheSyncApiReads: afterSync.reads,
          coldMs,
          coldApiWrites: afterCold.writes,
          coldApiReads: afterCold.reads,
          coldApiLists: afterCold.lists,
          coldObjectWrites: cold.applied,
          coldStatusWrites: cold.statusWrites,
          coldLiveReadNetworks: cold.liveReads,
          policiesApplied: applied,
          configsPerNode: stored.spec.configs.length,
          steadyMs,
          steadyApiWrites: afterSteady.writes,
          steadyApiReads: afterSteady.reads,
          steadyStatusWrites: steady.statusWrites,
        };
      } finally {
        await reconciler.stop();
      }
    },
  },
];
