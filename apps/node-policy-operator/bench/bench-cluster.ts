// The cluster of the operator benchmarks, on a loopback control plane with an audit log: 50 nodes, each with
// a SriovNetworkNodeState of 4 PFs × 64 VFs, and 200 policies that all select every node, each one VF of one
// PF (pfNames "ensNf0#k-k"), each referencing its own SriovNetwork, made ready by the SriovNetwork
// reconciler. A node's SriovResourcePolicy thus holds 200 configs. No generated object exists yet.
import pino from 'pino';
import { KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { OPERATOR_CHART_DIR, type ControlPlane, createNamespace, installCrds, renderChartTemplate, startControlPlane } from '@sriov-dra/k8s/testing';
import type { NodePolicyReconcilerOptions } from '../src/dra/node-policy-reconciler.ts';
import { reconcileSriovNetwork } from '../src/network/sriov-network-reconciler.ts';
import { type InventoryInterface, draReference, nodePolicyBody, seedNode, sriovNetworkBody } from '../test/cluster-objects.ts';

export const OPERATOR_NS = 'sriov-network-operator';
export const NODES = 50;
export const PFS_PER_NODE = 4;
export const VFS_PER_PF = 64;
export const POLICIES = 200;
/** The user the operator's requests are made as (filtered in the audit log). */
export const OPERATOR_USER = 'bench-operator';

export interface BenchCluster {
  readonly cp: ControlPlane;
  /** The reconciler's options but its caches, with a client held to the chart's default request budget. */
  readonly options: Omit<NodePolicyReconcilerOptions, 'informers' | 'nodeProblems'>;
  /** That budget, as the chart's Deployment passes it to the operator. */
  readonly qps: number;
  readonly burst: number;
}

/** KUBE_API_QPS and KUBE_API_BURST of the operator's Deployment as the chart renders it with its default values. */
function chartRequestBudget(): { qps: number; burst: number } {
  const [deployment] = renderChartTemplate(OPERATOR_CHART_DIR, 'deployment.yaml', { namespace: OPERATOR_NS });
  const env = (deployment as { spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } } }).spec.template.spec.containers[0]
    ?.env;
  const value = (name: string): number => {
    const found = Number(env?.find((entry) => entry.name === name)?.value);
    if (!Number.isFinite(found)) throw new Error(`the chart's operator Deployment sets no numeric ${name}`);
    return found;
  };
  return { qps: value('KUBE_API_QPS'), burst: value('KUBE_API_BURST') };
}

/** Runs `tasks` with at most `limit` in flight (setup only: thousands of objects). */
async function inBatches(tasks: readonly (() => Promise<unknown>)[], limit = 16): Promise<void> {
  for (let start = 0; start < tasks.length; start += limit) await Promise.all(tasks.slice(start, start + limit).map((task) => task()));
}

/** 4 PFs on their own buses, each with 64 VFs on the next bus. */
function inventory(): InventoryInterface[] {
  const hex = (value: number): string => value.toString(16).padStart(2, '0');
  return Array.from({ length: PFS_PER_NODE }, (_unused, pf) => ({
    name: `ens${String(pf)}f0`,
    pciAddress: `0000:${hex(0x30 + pf * 0x10)}:00.0`,
    vendor: '15b3',
    deviceID: '1017',
    Vfs: Array.from({ length: VFS_PER_PF }, (_vf, vfID) => ({
      pciAddress: `0000:${hex(0x31 + pf * 0x10)}:${hex(Math.floor(vfID / 8))}.${String(vfID % 8)}`,
      vfID,
      vendor: '15b3',
      deviceID: '1018',
    })),
  }));
}

export async function startBenchCluster(): Promise<BenchCluster> {
  const cp = await startControlPlane({ audit: true });
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, OPERATOR_NS);
  await createNamespace(admin, 'workloads');
  await inBatches(
    Array.from({ length: NODES }, (_unused, index) => async () => {
      const name = `node-${String(index)}`;
      await seedNode(admin, OPERATOR_NS, name, { bench: 'true', 'kubernetes.io/hostname': name }, inventory());
    }),
  );
  const common = { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', logger: pino({ level: 'silent' }) };
  await inBatches(
    Array.from({ length: POLICIES }, (_unused, index) => async () => {
      const rail = `rail-${String(index)}`;
      await admin.create(
        resourceTypes.sriovNetwork,
        sriovNetworkBody(OPERATOR_NS, rail, { resourceName: 'sriov_vfs', networkNamespace: 'workloads', ipam: '{"type":"host-local","subnet":"10.0.0.0/16"}' }),
        { namespace: OPERATOR_NS },
      );
      await reconcileSriovNetwork({ namespace: OPERATOR_NS, name: rail }, { ...common, client: admin });
      const pf = index % PFS_PER_NODE;
      const vf = Math.floor(index / PFS_PER_NODE);
      await admin.create(
        resourceTypes.sriovNetworkNodePolicy,
        nodePolicyBody(OPERATOR_NS, `policy-${String(index)}`, {
          resourceName: 'sriov_vfs',
          nodeSelector: { bench: 'true' },
          numVfs: VFS_PER_PF,
          nicSelector: { vendor: '15b3', pfNames: [`ens${String(pf)}f0#${String(vf)}-${String(vf)}`] },
          dra: draReference(OPERATOR_NS, rail, { 'example.com/rail': { int: index } }),
        }),
        { namespace: OPERATOR_NS },
      );
    }),
  );
  // The operator's request budget as the chart deploys it, not the test clients' generous one.
  const { qps, burst } = chartRequestBudget();
  const client = KubeClient.fromConfig(cp.clientFor(OPERATOR_USER, ['system:masters']).config, { qps, burst });
  return { cp, options: { ...common, client, draEnabled: true }, qps, burst };
}
