// Cold and steady-state reconciliation of the node-policy DRA generator at scale, on a loopback control
// plane with an audit log: 50 nodes, each with a SriovNetworkNodeState of 4 PFs × 64 VFs, and 200 policies
// that all select every node, each one VF of one PF (pfNames "ensNf0#k-k"), each referencing its own ready
// SriovNetwork. A node's SriovResourcePolicy thus holds 200 configs. The cold run starts from no generated
// object; the steady-state run follows it with nothing changed and must write nothing. Writes are counted at
// the API server (audit log, the operator's user, create/update/patch/delete), not by the reconciler itself.
import pino from 'pino';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type NodePolicyReconcilerOptions, reconcileNodePolicies } from '../src/dra/node-policy-reconciler.ts';
import { reconcileSriovNetwork } from '../src/network/sriov-network-reconciler.ts';

const OPERATOR_NS = 'sriov-network-operator';
const NODES = 50;
const PFS_PER_NODE = 4;
const VFS_PER_PF = 64;
const POLICIES = 200;
const OPERATOR_USER = 'bench-operator';
/** Issue target for the cold reconciliation. */
const TARGET_COLD_MS = 5_000;
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

interface Context {
  readonly cp: ControlPlane;
  readonly options: NodePolicyReconcilerOptions;
}

/** Runs `tasks` with at most `limit` in flight (setup only: thousands of objects). */
async function inBatches(tasks: readonly (() => Promise<unknown>)[], limit = 16): Promise<void> {
  for (let start = 0; start < tasks.length; start += limit) await Promise.all(tasks.slice(start, start + limit).map((task) => task()));
}

function nodeState(node: string): Record<string, unknown> {
  return {
    interfaces: Array.from({ length: PFS_PER_NODE }, (_unused, pf) => ({
      name: `ens${String(pf)}f0`,
      pciAddress: `0000:${String(0x30 + pf * 0x10).padStart(2, '0')}:00.0`,
      vendor: '15b3',
      deviceID: '1017',
      Vfs: Array.from({ length: VFS_PER_PF }, (_vf, vfID) => ({
        pciAddress: `0000:${String(0x31 + pf * 0x10).padStart(2, '0')}:${String(Math.floor(vfID / 8)).padStart(2, '0')}.${String(vfID % 8)}`,
        vfID,
        vendor: '15b3',
        deviceID: '1018',
      })),
    })),
    node,
  };
}

export async function setup(): Promise<Context> {
  const cp = await startControlPlane({ audit: true });
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, OPERATOR_NS);
  await createNamespace(admin, 'workloads');
  await inBatches(
    Array.from({ length: NODES }, (_unused, index) => async () => {
      const name = `node-${String(index)}`;
      await admin.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { bench: 'true', 'kubernetes.io/hostname': name } } });
      await admin.create(
        resourceTypes.sriovNetworkNodeState,
        { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkNodeState', metadata: { name, namespace: OPERATOR_NS }, spec: {} },
        { namespace: OPERATOR_NS },
      );
      const { interfaces } = nodeState(name);
      await admin.patch(
        resourceTypes.sriovNetworkNodeState,
        { namespace: OPERATOR_NS, name, subresource: 'status' },
        { status: { interfaces } },
        'application/merge-patch+json',
      );
    }),
  );
  const common = { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', logger: pino({ level: 'silent' }) };
  await inBatches(
    Array.from({ length: POLICIES }, (_unused, index) => async () => {
      const rail = `rail-${String(index)}`;
      await admin.create(
        resourceTypes.sriovNetwork,
        {
          apiVersion: 'sriovnetwork.openshift.io/v1',
          kind: 'SriovNetwork',
          metadata: { name: rail, namespace: OPERATOR_NS },
          spec: { resourceName: 'sriov_vfs', networkNamespace: 'workloads', ipam: '{"type":"host-local","subnet":"10.0.0.0/16"}' },
        },
        { namespace: OPERATOR_NS },
      );
      await reconcileSriovNetwork({ namespace: OPERATOR_NS, name: rail }, { ...common, client: admin });
      const pf = index % PFS_PER_NODE;
      const vf = Math.floor(index / PFS_PER_NODE);
      await admin.create(
        resourceTypes.sriovNetworkNodePolicy,
        {
          apiVersion: 'sriovnetwork.openshift.io/v1',
          kind: 'SriovNetworkNodePolicy',
          metadata: { name: `policy-${String(index)}`, namespace: OPERATOR_NS },
          spec: {
            resourceName: 'sriov_vfs',
            nodeSelector: { bench: 'true' },
            numVfs: VFS_PER_PF,
            nicSelector: { vendor: '15b3', pfNames: [`ens${String(pf)}f0#${String(vf)}-${String(vf)}`] },
            dra: {
              attributes: {
                'sriovnetwork.openshift.io/sriovNetworkName': { string: rail },
                'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: OPERATOR_NS },
                'example.com/rail': { int: index },
              },
            },
          },
        },
        { namespace: OPERATOR_NS },
      );
    }),
  );
  const client: KubeClient = cp.clientFor(OPERATOR_USER, ['system:masters']);
  return { cp, options: { ...common, client, draEnabled: true } };
}

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
