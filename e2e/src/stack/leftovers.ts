// What a Pod's life may leave behind on the cluster and the node, gathered in one place so every
// teardown check (§14.4, scenario d) asks the same questions: shadows and their finalizers, Whereabouts
// allocations and reservations, host-local leases, VFs outside the host namespace or off their driver,
// GPU and driver preparations.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { DRIVER_NAME, labels } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import type { GpuStandIn } from '../node/gpu-stand-in.ts';
import type { SimulatedNode } from './simulated-node.ts';

/** Where leftovers are looked for: the cluster, the node's hardware and state, and the GPU driver. */
export interface LeftoverSource {
  readonly admin: KubeClient;
  readonly node: Pick<SimulatedNode, 'hostLocalDir' | 'pfs' | 'vfLinksOnHost' | 'driverOf' | 'pluginsDir'>;
  readonly gpu: Pick<GpuStandIn, 'prepared'>;
}

const WHEREABOUTS_GROUP = 'whereabouts.cni.cncf.io';
const ipPools: ResourceType = { group: WHEREABOUTS_GROUP, version: 'v1alpha1', resource: 'ippools', kind: 'IPPool', namespaced: true };
const reservations: ResourceType = {
  group: WHEREABOUTS_GROUP,
  version: 'v1alpha1',
  resource: 'overlappingrangeipreservations',
  kind: 'OverlappingRangeIPReservation',
  namespaced: true,
};

export interface Leftovers {
  /** Shadow NADs (managed-by label) anywhere, with their finalizers. */
  readonly shadows: readonly string[];
  /** Whereabouts allocations: `<pool range> <offset> <podref>`. */
  readonly whereaboutsAllocations: readonly string[];
  readonly whereaboutsReservations: readonly string[];
  /** host-local lease files (an address per file) under the node's lease directory. */
  readonly hostLocalLeases: readonly string[];
  /** VF netdevs not in the host network namespace. */
  readonly vfsAway: readonly string[];
  /** VFs not bound to their netdev driver. */
  readonly vfsOffDriver: readonly string[];
  readonly gpuClaims: readonly string[];
  readonly driverCheckpointClaims: readonly string[];
}

async function listAll(client: KubeClient, type: ResourceType, labelSelector?: string): Promise<KubeObject[]> {
  return (await client.list(type, labelSelector === undefined ? {} : { labelSelector })).items;
}

export async function leftovers(stack: LeftoverSource): Promise<Leftovers> {
  const { admin, node } = stack;
  const shadows = (await listAll(admin, resourceTypes.networkAttachmentDefinition, labels.managedBy)).map(
    (nad) => `${nad.metadata.namespace ?? ''}/${nad.metadata.name} [${(nad.metadata.finalizers ?? []).join(',')}]`,
  );
  const pools = (await listAll(admin, ipPools)) as (KubeObject & { spec: { range: string; allocations?: Record<string, { podref?: string }> } })[];
  const whereaboutsAllocations = pools.flatMap((pool) =>
    Object.entries(pool.spec.allocations ?? {}).map(([offset, allocation]) => `${pool.spec.range} ${offset} ${allocation.podref ?? ''}`),
  );
  const whereaboutsReservations = (await listAll(admin, reservations)).map((reservation) => reservation.metadata.name);
  const hostLocalLeases = fs.existsSync(node.hostLocalDir)
    ? fs.readdirSync(node.hostLocalDir).flatMap((network) =>
        fs
          .readdirSync(path.join(node.hostLocalDir, network))
          // host-local keeps its lock and its last-reserved cursor beside the leases.
          .filter((file) => file !== 'lock' && !file.startsWith('last_reserved_ip'))
          .map((file) => `${network}/${file}`),
      )
    : [];
  const vfs = node.pfs.flatMap((pf) => pf.vfs);
  const onHost = new Set(node.vfLinksOnHost());
  const checkpointFile = path.join(node.pluginsDir, DRIVER_NAME, 'checkpoint.json');
  const checkpoint = fs.existsSync(checkpointFile) ? (JSON.parse(fs.readFileSync(checkpointFile, 'utf8')) as { claims?: Record<string, unknown> }) : {};
  return {
    shadows,
    whereaboutsAllocations,
    whereaboutsReservations,
    hostLocalLeases,
    vfsAway: vfs.flatMap((vf) => (vf.netdev !== undefined && !onHost.has(vf.netdev) ? [vf.netdev] : [])),
    vfsOffDriver: vfs.flatMap((vf) => (node.driverOf(vf.pciAddress) === vf.driver ? [] : [vf.pciAddress])),
    gpuClaims: [...stack.gpu.prepared().keys()],
    driverCheckpointClaims: Object.keys(checkpoint.claims ?? {}),
  };
}

/** Nothing left: what leftovers() reports once every Pod is gone and released. */
export const NOTHING_LEFT: Leftovers = {
  shadows: [],
  whereaboutsAllocations: [],
  whereaboutsReservations: [],
  hostLocalLeases: [],
  vfsAway: [],
  vfsOffDriver: [],
  gpuClaims: [],
  driverCheckpointClaims: [],
};

/** How many things are left, over every kind. */
export function leftoverCount(left: Leftovers): number {
  const kinds = [
    left.shadows,
    left.whereaboutsAllocations,
    left.whereaboutsReservations,
    left.hostLocalLeases,
    left.vfsAway,
    left.vfsOffDriver,
    left.gpuClaims,
    left.driverCheckpointClaims,
  ];
  return kinds.reduce((sum, items) => sum + items.length, 0);
}

/**
 * Looks until nothing is left or `timeoutMs` passed (releases land asynchronously: finalizers, the
 * resourceclaim controller), and returns what was left at the last look.
 */
export async function settledLeftovers(stack: LeftoverSource, timeoutMs = 60_000): Promise<Leftovers> {
  const deadline = performance.now() + timeoutMs;
  // A look that fails (an API server answering 429 while its storage initializes) is looked at again.
  const look = async (): Promise<Leftovers | undefined> => {
    try {
      return await leftovers(stack);
    } catch (error) {
      if (performance.now() >= deadline) throw error;
      return undefined;
    }
  };
  let left = await look();
  while ((left === undefined || leftoverCount(left) > 0) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await look();
  }
  return left ?? leftovers(stack);
}
