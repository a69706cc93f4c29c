// Cold and steady-state reconciliation of the node-policy DRA generator at scale (bench-cluster.ts: 200
// policies × 50 nodes). The cold run starts from no generated object; the steady-state run follows it with
// nothing changed and must write nothing. Writes are counted at the API server (audit log, the operator's
// user, create/update/patch/delete), not by the reconciler itself.
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import type { ControlPlane } from '@sriov-dra/k8s/testing';
import { reconcileNodePolicies } from '../src/dra/node-policy-reconciler.ts';
import { type BenchCluster, NODES, OPERATOR_NS, OPERATOR_USER, PFS_PER_NODE, POLICIES, VFS_PER_PF, startBenchCluster } from './bench-cluster.ts';

/** Issue target for the cold reconciliation. */
const TARGET_COLD_MS = 5_000;
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

type Context = BenchCluster;

export const setup = startBenchCluster;

export async function teardown({ cp }: Context): Promise<void> {
  await cp.stop();
}

async function writesSince(cp: ControlPlane, seen: number): Promise<{ writes: number; total: number }> {
  const requests = (await cp.auditLog?.requests()) ?? [];
  const mine = requests.slice(seen).filter((event) => event.user.username === OPERATOR_USER && WRITE_VERBS.has(event.verb));
  return { writes: mine.length, total: requests.length };
}

export const benchmarks = [
  {
    name: `node-policy DRA reconciliation, ${String(POLICIES)} policies × ${String(NODES)} nodes (${String(PFS_PER_NODE)} PFs × ${String(VFS_PER_PF)} VFs each, every policy on every node, each referencing a ready SriovNetwork): cold, then steady state; writes counted at the API server (audit log)`,
    once: async ({ cp, options }: Context) => {
      const before = (await cp.auditLog?.requests())?.length ?? 0;
      const coldStarted = performance.now();
      const cold = await reconcileNodePolicies(options);
      const coldMs = performance.now() - coldStarted;
      const afterCold = await writesSince(cp, before);
      if (cold.failures.length > 0) throw new Error(`cold reconciliation failed: ${cold.failures.join('; ')}`);
      const applied = [...cold.plan.verdicts.values()].filter((verdict) => verdict.reason === 'DRAConfigurationApplied').length;
      const steadyStarted = performance.now();
      const steady = await reconcileNodePolicies(options);
      const steadyMs = performance.now() - steadyStarted;
      const afterSteady = await writesSince(cp, afterCold.total);
      const stored = await options.client.get<KubeObject & { spec: { configs: unknown[] } }>(resourceTypes.sriovResourcePolicy, {
        namespace: OPERATOR_NS,
        name: 'node-0',
      });
      return {
        coldMs,
        targetColdMs: TARGET_COLD_MS,
        coldApiWrites: afterCold.writes,
        coldObjectWrites: cold.applied,
        coldStatusWrites: cold.statusWrites,
        policiesApplied: applied,
        configsPerNode: stored.spec.configs.length,
        steadyMs,
        steadyApiWrites: afterSteady.writes,
        steadyStatusWrites: steady.statusWrites,
      };
    },
  },
];
