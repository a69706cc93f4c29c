// §18.3 object growth at the intended size: 1,000 Pods × 8 VFs ≈ 8,000 live shadows, created directly on a
// real control plane in steps (where 1,000 nodes' processes would not fit on one machine), and at each step
// what grows with them: etcd's database, the objects the API server stores, the LISTs the components make
// (every NAD, one namespace's, one node's shadows by the driver's orphan-listing selector), and the memory
// of each component that caches every NAD.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeShadowSelector } from '@sriov-dra/dra-driver';
import { KubeClient } from '@sriov-dra/k8s';
import { createNamespace, installCrds, startControlPlane, writeJsonKubeconfig } from '@sriov-dra/k8s/testing';
import type { CostSeries } from '../../../tools/bench/growth/growth-report.ts';
import { cacheMemory } from './cache-memory.ts';
import { medianListCost } from './list-cost.ts';
import { RAILS_PER_POD, growPopulation, startPopulation, workloadNamespace } from './shadow-population.ts';
import { storedFigures } from './stored-figures.ts';

export const AXIS = 'live shadows';
const NAD_PATH = '/apis/k8s.cni.cncf.io/v1/network-attachment-definitions';
const OPERATOR_NAMESPACE = 'sriov-network-operator';
const MiB = 2 ** 20;

export interface ObjectGrowthOptions {
  /** Pods at each step (each with RAILS_PER_POD shadows), ascending. */
  readonly podSteps: readonly number[];
  readonly namespaces: number;
  /** LISTs timed per kind and step; the median is reported. */
  readonly listRepeats: number;
  /** Measure the caching components' memory (tens of seconds a step). */
  readonly componentMemory: boolean;
  readonly settleMs: number;
  readonly windowMs: number;
  /** Called after each step, e.g. to log progress. */
  readonly onStep?: (step: { pods: number; shadows: number; figures: Readonly<Record<string, number>> }) => void;
}

export const DEFAULT_OBJECT_GROWTH: ObjectGrowthOptions = {
  podSteps: [63, 125, 250, 500, 1000],
  namespaces: 10,
  listRepeats: 5,
  componentMemory: true,
  settleMs: 15_000,
  windowMs: 15_000,
};

interface SeriesSpec {
  readonly key: string;
  readonly cost: string;
  readonly unit: string;
}

const SERIES: readonly SeriesSpec[] = [
  { key: 'etcdDbMiB', cost: 'etcd database size', unit: 'MiB' },
  { key: 'etcdDbInUseMiB', cost: 'etcd database size in use', unit: 'MiB' },
  { key: 'etcdKeys', cost: 'etcd keys (all resources)', unit: 'keys' },
  { key: 'storedNads', cost: 'NADs stored (shadows + rail sources)', unit: 'objects' },
  { key: 'storedPods', cost: 'Pods stored', unit: 'objects' },
  { key: 'nadBytesMiB', cost: 'NADs stored: size estimate', unit: 'MiB' },
  { key: 'podBytesMiB', cost: 'Pods stored: size estimate', unit: 'MiB' },
  { key: 'listAllMs', cost: 'LIST all NADs (pages of 500): time', unit: 'ms' },
  { key: 'listAllMiB', cost: 'LIST all NADs: bytes', unit: 'MiB' },
  { key: 'listAllLargestPageKiB', cost: 'LIST all NADs: largest page', unit: 'KiB' },
  { key: 'listNamespaceMs', cost: 'LIST one namespace’s NADs: time', unit: 'ms' },
  { key: 'listNamespaceKiB', cost: 'LIST one namespace’s NADs: bytes', unit: 'KiB' },
  { key: 'listNodeMs', cost: 'LIST one node’s shadows: time', unit: 'ms' },
  { key: 'listNodeKiB', cost: 'LIST one node’s shadows: bytes', unit: 'KiB' },
  { key: 'operatorRssMiB', cost: 'node-policy-operator RSS', unit: 'MiB' },
  { key: 'multusDaemonRssMiB', cost: 'Multus daemon RSS (informer mode)', unit: 'MiB' },
];

/** Grows the population step by step and measures every cost at each; one series per cost on the "live shadows" axis. */
export async function measureObjectGrowth(options: ObjectGrowthOptions = DEFAULT_OBJECT_GROWTH): Promise<CostSeries[]> {
  const dir = mkdtempSync(join(tmpdir(), 'object-growth-'));
  const cp = await startControlPlane();
  try {
    // Setup writes thousands of objects: the client's limiter, not the API server, would set the pace.
    const client = KubeClient.fromConfig(cp.adminClient.config, { qps: 1_000, burst: 1_000 });
    await installCrds(client);
    await createNamespace(client, OPERATOR_NAMESPACE);
    const kubeconfig = writeJsonKubeconfig(cp.kubeconfig, join(dir, 'kubeconfig.json'));
    const population = await startPopulation(client, { namespaces: options.namespaces });
    const rows: { shadows: number; figures: Record<string, number> }[] = [];
    for (const pods of options.podSteps) {
      await growPopulation(client, population, pods);
      const all = await medianListCost(client, NAD_PATH, options.listRepeats);
      const namespace = workloadNamespace(population.shape, 0);
      const oneNamespace = await medianListCost(client, `/apis/k8s.cni.cncf.io/v1/namespaces/${namespace}/network-attachment-definitions`, options.listRepeats);
      const node = population.nodes[0];
      if (node === undefined) throw new Error('no Pod was created');
      const oneNode = await medianListCost(client, NAD_PATH, options.listRepeats, nodeShadowSelector(node.uid));
      if (oneNode.items !== RAILS_PER_POD) throw new Error(`node ${node.name}'s selector found ${String(oneNode.items)} shadows, not ${String(RAILS_PER_POD)}`);
      const memory = options.componentMemory
        ? await cacheMemory({ kubeconfig, operatorNamespace: OPERATOR_NAMESPACE, dir, settleMs: options.settleMs, windowMs: options.windowMs })
        : undefined;
      const shadows = pods * RAILS_PER_POD;
      const stored = await storedFigures(cp, { nads: shadows + options.namespaces * RAILS_PER_POD, pods });
      const figures: Record<string, number> = {
        etcdDbMiB: stored.etcdDbBytes / MiB,
        etcdDbInUseMiB: stored.etcdDbInUseBytes / MiB,
        etcdKeys: stored.etcdKeys,
        storedNads: stored.nads,
        storedPods: stored.pods,
        nadBytesMiB: stored.nadBytes / MiB,
        podBytesMiB: stored.podBytes / MiB,
        listAllMs: all.ms,
        listAllMiB: all.bytes / MiB,
        listAllLargestPageKiB: all.largestPageBytes / 1024,
        listNamespaceMs: oneNamespace.ms,
        listNamespaceKiB: oneNamespace.bytes / 1024,
        listNodeMs: oneNode.ms,
        listNodeKiB: oneNode.bytes / 1024,
        ...(memory === undefined ? {} : memory),
      };
      rows.push({ shadows, figures });
      options.onStep?.({ pods, shadows, figures });
    }
    return SERIES.filter((spec) => rows.some((row) => spec.key in row.figures)).map((spec) => ({
      cost: spec.cost,
      unit: spec.unit,
      axis: AXIS,
      points: rows.flatMap((row) => {
        const y = row.figures[spec.key];
        return y === undefined ? [] : [{ x: row.shadows, y }];
      }),
    }));
  } finally {
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
