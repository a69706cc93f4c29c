// ResourceSlice publication for a node of 256 discovered VFs on a loopback control plane (v1.36): the
// first publish (two slices of ≤128 devices), unchanged republishes and the API writes they make (the
// target is none), and the republish after one VF disappears. Every pass reads the Node and lists the
// slices live, resolves policy over the informer caches and writes only the differences.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type ApiRequest, KubeClient } from '@sriov-dra/k8s';
import type { ControlPlane } from '@sriov-dra/k8s/testing';
import type { InventoryDevice } from '../src/policy/policy-devices.ts';
import { SlicePublication } from '../src/slices/slice-publication.ts';
import type { PublishResult } from '../src/slices/slice-publisher.ts';
import { DRIVER_NAMESPACE, startBenchCluster } from './bench-cluster.ts';
import { BENCH_NODE, NODE_VFS, discoverNode, generateNode, inventoryOf, percentile } from './fake-node.ts';

const REPUBLISHES = 50;

/** Counts what the publication sends: every request, and the ResourceSlice writes among them. */
class CountingClient extends KubeClient {
  requests = 0;
  sliceWrites = 0;
  override request(req: ApiRequest): Promise<unknown> {
    this.requests += 1;
    if (req.method !== 'GET' && req.path.includes('/resourceslices')) this.sliceWrites += 1;
    return super.request(req);
  }
}

interface Context {
  readonly cp: ControlPlane;
  readonly devices: readonly InventoryDevice[];
}

export async function setup(): Promise<Context> {
  const dir = mkdtempSync(join(tmpdir(), 'dra-driver-bench-slices-'));
  const sysfsRoot = join(dir, 'sys');
  generateNode(sysfsRoot);
  const devices = inventoryOf(await discoverNode(sysfsRoot));
  rmSync(dir, { recursive: true, force: true });
  return { cp: await startBenchCluster(), devices };
}

export async function teardown(context: Context): Promise<void> {
  await context.cp.stop();
}

async function timedPass(publication: SlicePublication): Promise<{ ms: number; result: PublishResult }> {
  const started = performance.now();
  const result = await publication.sync();
  return { ms: performance.now() - started, result };
}

export const benchmarks = [
  {
    name: `ResourceSlice publication of ${NODE_VFS} discovered VFs (1 policy, 1 DeviceAttributes merged into each): first publish, ${REPUBLISHES} unchanged republishes, one VF removed`,
    once: async ({ cp, devices }: Context) => {
      const client = new CountingClient(KubeClient.fromKubeConfig(cp.kubeconfig).config, { qps: 1_000, burst: 1_000 });
      let inventory: readonly InventoryDevice[] = [];
      const publication = new SlicePublication({
        client,
        driver: DRIVER_NAME,
        nodeName: BENCH_NODE,
        namespace: DRIVER_NAMESPACE,
        limits: { listAttributes: false },
        inventory: () => inventory,
        resyncMs: 0,
      });
      const stop = new AbortController();
      const running = publication.run(stop.signal);
      try {
        // An empty inventory first: the informers are synced and the pass below is publication alone.
        await publication.sync();
        inventory = devices;
        const first = await timedPass(publication);
        if (first.result.created !== 2) throw new Error(`the first publish created ${first.result.created} slices, not 2`);

        const writesBefore = client.sliceWrites;
        const requestsBefore = client.requests;
        const unchanged: number[] = [];
        for (let i = 0; i < REPUBLISHES; i += 1) unchanged.push((await timedPass(publication)).ms);
        unchanged.sort((a, b) => a - b);
        const unchangedWrites = client.sliceWrites - writesBefore;
        const requestsPerUnchanged = (client.requests - requestsBefore) / REPUBLISHES;

        const changedWritesBefore = client.sliceWrites;
        inventory = devices.slice(1);
        const changed = await timedPass(publication);
        return {
          devices: devices.length,
          firstPublishMs: first.ms,
          firstPublishWrites: first.result.created + first.result.updated + first.result.deleted,
          unchangedP50Ms: percentile(unchanged, 50),
          unchangedP99Ms: percentile(unchanged, 99),
          unchangedWrites,
          requestsPerUnchangedPass: requestsPerUnchanged,
          oneVfRemovedMs: changed.ms,
          oneVfRemovedWrites: client.sliceWrites - changedWritesBefore,
        };
      } finally {
        stop.abort();
        await running;
        client.close();
      }
    },
  },
];
