// API round trips on a loopback control plane: the guarded JSON Patch the driver uses for Pod
// selections, and how fast an informer observes a burst of 5,000 NAD creations.
import { annotationChanges } from '../src/json-patch.ts';
import { patchGuarded } from '../src/guarded-patch.ts';
import { Informer } from '../src/informer.ts';
import type { KubeObject } from '../src/client.ts';
import { resourceTypes } from '../src/resources.ts';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '../src/testing/index.ts';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function setup(): Promise<ControlPlane> {
  const started = performance.now();
  const cp = await startControlPlane();
  console.log(`control plane ready in ${Math.round(performance.now() - started)} ms`);
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, 'bench');
  return cp;
}

export async function teardown(cp: ControlPlane): Promise<void> {
  await cp.stop();
}

export const benchmarks = [
  {
    name: 'guarded Pod annotation patch round trip (GET + JSON Patch with uid/resourceVersion tests), 500 sequential',
    once: async (cp: ControlPlane) => {
      const client = cp.adminClient;
      const pod = await client.create(
        resourceTypes.pod,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'patched' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        { namespace: 'bench' },
      );
      const at = { namespace: 'bench', name: 'patched', uid: pod.metadata.uid };
      const samples: number[] = [];
      for (let i = 0; i < 500; i += 1) {
        const started = performance.now();
        await patchGuarded<KubeObject>(client, resourceTypes.pod, at, (live) =>
          annotationChanges(live.metadata.annotations, { 'bench.example/round': String(i) }),
        );
        samples.push(performance.now() - started);
      }
      samples.sort((a, b) => a - b);
      return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), requests: samples.length * 2 };
    },
  },
  {
    name: 'informer observing 5,000 NAD creates (16 concurrent writers)',
    once: async (cp: ControlPlane) => {
      const client = cp.adminClient;
      const total = 5_000;
      const createdAt = new Map<string, number>();
      const lags: number[] = [];
      let seen = 0;
      let allSeen: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        allSeen = resolve;
      });
      const informer = new Informer<KubeObject>(
        client,
        resourceTypes.networkAttachmentDefinition,
        {
          onAdd: (object) => {
            const at = createdAt.get(object.metadata.name);
            if (at !== undefined) lags.push(performance.now() - at);
            seen += 1;
            if (seen === total) allSeen();
          },
        },
        { namespace: 'bench' },
      );
      const stop = new AbortController();
      const running = informer.run(stop.signal);
      await informer.waitForSync();
      const heapBefore = process.memoryUsage().heapUsed;
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < total) {
            const name = `nad-${next++}`;
            await client.create(
              resourceTypes.networkAttachmentDefinition,
              {
                apiVersion: 'k8s.cni.cncf.io/v1',
                kind: 'NetworkAttachmentDefinition',
                metadata: { name },
                spec: { config: '{"cniVersion":"1.0.0","type":"sriov"}' },
              },
              { namespace: 'bench' },
            );
            createdAt.set(name, performance.now());
          }
        }),
      );
      const writesDone = performance.now();
      await done;
      const observed = performance.now();
      const heapAfter = process.memoryUsage().heapUsed;
      stop.abort();
      await running;
      lags.sort((a, b) => a - b);
      return {
        creates: total,
        createsPerSecond: total / ((writesDone - started) / 1000),
        observedPerSecond: total / ((observed - started) / 1000),
        lagP50Ms: percentile(lags, 50),
        lagP99Ms: percentile(lags, 99),
        cacheHeapMiB: (heapAfter - heapBefore) / 2 ** 20,
      };
    },
  },
];
