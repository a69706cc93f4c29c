// The fleet's workload: Pods with one managed VF attachment each (the one-VF claim template, the rail's
// network from the operator's mapping), each pinned to a node by its hostname label so that they spread
// evenly. Churn creates them at a fixed rate, waits for each to be added and deletes it; resting Pods
// stay until removed. Ready is creation to CNI ADD done, on one clock (the kubelets run in this process).
import { performance } from 'node:perf_hooks';
import { type KubeClient, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { ONE_VF_TEMPLATE } from '../scenarios/churn.ts';
import type { FleetNode } from './fleet-node.ts';

function fleetPod(name: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'fleet-workload' } },
    spec: {
      nodeSelector: { 'kubernetes.io/hostname': node },
      terminationGracePeriodSeconds: 5,
      containers: [{ name: 'workload', image: 'registry.example.com/app:1', resources: { claims: [{ name: 'nic' }] } }],
      resourceClaims: [{ name: 'nic', resourceClaimTemplateName: ONE_VF_TEMPLATE }],
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the Pod on `node` and resolves its creation-to-added time once its CNI ADD is done. */
async function runPod(admin: KubeClient, namespace: string, name: string, node: FleetNode, timeoutMs: number): Promise<number> {
  const created = performance.now();
  const pod = await admin.create(resourceTypes.pod, fleetPod(name, node.name), { namespace });
  await waitFor(`${name} on ${node.name} to be added`, () => Promise.resolve(node.kubelet.timeline(pod.metadata.uid)?.added !== undefined), {
    timeoutMs,
    describe: () => node.driver.logTail(10),
  });
  return (node.kubelet.timeline(pod.metadata.uid)?.added ?? Number.NaN) - created;
}

async function deletePod(admin: KubeClient, namespace: string, name: string): Promise<void> {
  await admin.delete(resourceTypes.pod, { namespace, name }).catch((error: unknown) => {
    if (!isApiError(error, 'NotFound')) throw error;
  });
}

/** Waits until no Pod of the workload is left in `namespace` (every teardown completed). */
export async function waitNoPods(admin: KubeClient, namespace: string, timeoutMs: number): Promise<void> {
  await waitFor(
    'every workload Pod torn down',
    async () => (await admin.list(resourceTypes.pod, { namespace, labelSelector: 'app=fleet-workload' })).items.length === 0,
    { timeoutMs },
  );
}

export interface ChurnFigures {
  readonly pods: number;
  readonly readyMs: readonly number[];
  readonly startedAt: Date;
  readonly endedAt: Date;
}

/**
 * One Pod every 1/`podsPerSecond` seconds for `seconds`, round robin over the nodes; each is deleted
 * once added. Resolves when the last is gone.
 */
export async function churn(
  admin: KubeClient,
  namespace: string,
  nodes: readonly FleetNode[],
  options: { readonly podsPerSecond: number; readonly seconds: number; readonly tag: string },
): Promise<ChurnFigures> {
  const startedAt = new Date();
  const count = Math.round(options.podsPerSecond * options.seconds);
  // Settled as they go: a Pod failing while later ones are still being created must not go unhandled.
  const runs: Promise<PromiseSettledResult<number>>[] = [];
  for (let index = 0; index < count; index += 1) {
    const node = nodes[index % nodes.length];
    if (node === undefined) throw new Error('churn on a fleet without nodes');
    const name = `churn-${options.tag}-${String(index)}`;
    const run = runPod(admin, namespace, name, node, 180_000).finally(() => deletePod(admin, namespace, name));
    runs.push(
      run.then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      ),
    );
    await sleep(1000 / options.podsPerSecond);
  }
  const settled = await Promise.all(runs);
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  const readyMs = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  await waitNoPods(admin, namespace, 180_000);
  return { pods: count, readyMs, startedAt, endedAt: new Date() };
}

/** `perNode` Pods on every node, left running; resolves once all are added. */
export async function placeResting(admin: KubeClient, namespace: string, nodes: readonly FleetNode[], perNode: number, tag: string): Promise<number[]> {
  const runs: Promise<number>[] = [];
  for (const node of nodes) {
    for (let index = 0; index < perNode; index += 1) runs.push(runPod(admin, namespace, `rest-${tag}-${node.name}-${String(index)}`, node, 300_000));
  }
  return Promise.all(runs);
}

/** Deletes every workload Pod and waits until all are torn down. */
export async function removeWorkload(admin: KubeClient, namespace: string): Promise<void> {
  const pods = await admin.list(resourceTypes.pod, { namespace, labelSelector: 'app=fleet-workload' });
  await Promise.all(pods.items.map((pod) => deletePod(admin, namespace, pod.metadata.name)));
  await waitNoPods(admin, namespace, 300_000);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
