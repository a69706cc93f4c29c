// The real node's figures (npm run bench e2e, where the machine runs a real node: tools/real-node/support.sh):
// §14.2's Pod from creation to Running (the kubelet's prepare of both drivers, sandbox, CNI ADD through the
// upstream shim and the daemon Pod, container start), warm, 20 runs one after another, managed (the
// claim's VFs bound by the driver) against the same Pod with hand-written static NADs (GPUs still claimed,
// each NIC named by PCI address in a networks annotation); and the real-node demo's wall time.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { annotations } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type RealStack, startRealStack } from '../src/real-node/real-stack.ts';
import { deletePodAndWait, onRealNode, waitRunning } from '../src/real-node/workload.ts';
import { createStaticNads } from '../src/scenarios/churn.ts';
import { createClaimTemplate } from '../src/scenarios/claim-template.ts';
import { pairsPod, setUpPairs } from '../src/scenarios/gpu-nic-pairs.ts';
import { leftoverCount, settledLeftovers } from '../src/stack/leftovers.ts';
import { WORKLOADS } from '../src/stack/stack.ts';

const DEMO = fileURLToPath(new URL('../src/demo-real-node.ts', import.meta.url));
const RUNS = 20;
const GPUS_TEMPLATE = 'gpu-pair';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** §14.2's Pod with its NICs from static NADs: the two GPUs still by claim, one VF of each rail by PCI address. */
function staticPairsPod(name: string, nads: readonly [string, string]): Record<string, unknown> {
  const managed = pairsPod(name) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  return {
    ...managed,
    metadata: {
      ...managed.metadata,
      annotations: {
        [annotations.networks]: JSON.stringify([
          { name: nads[0], interface: 'net1' },
          { name: nads[1], interface: 'net2' },
        ]),
      },
    },
    spec: { ...managed.spec, resourceClaims: [{ name: 'devices', resourceClaimTemplateName: GPUS_TEMPLATE }] },
  };
}

/** Creation to Running of `RUNS` Pods one after another (after one unmeasured run), each deleted before the next. */
async function readyTimes(stack: RealStack, pod: (name: string) => Record<string, unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run += 1) {
    const name = `bench-${String(run)}`;
    const created = performance.now();
    await stack.admin.create(resourceTypes.pod, onRealNode(pod(name), stack.images.busybox.image), { namespace: WORKLOADS });
    await waitRunning(stack, WORKLOADS, name);
    if (run > 0) times.push(performance.now() - created);
    await deletePodAndWait(stack.admin, WORKLOADS, name);
  }
  return times;
}

async function podFigures(): Promise<Record<string, number>> {
  const stack = await startRealStack();
  try {
    await setUpPairs(stack.admin, { whereaboutsConfig: stack.hardware.whereaboutsConfig });
    await createClaimTemplate(stack.admin, { namespace: WORKLOADS, name: GPUS_TEMPLATE }, [
      { name: 'gpu-0', deviceClassName: 'nvidia-gpu-pcie' },
      { name: 'gpu-1', deviceClassName: 'nvidia-gpu-pcie' },
    ]);
    const managed = await readyTimes(stack, pairsPod);
    // The chart's default client budget for the driver (QPS 5, burst 10) is for a quiet node; 20 Pods one
    // after another exhaust it. The same runs again with the budget the simulated stack gives the driver.
    stack.upgrade(['dra-driver.kubeApi.qps=100', 'dra-driver.kubeApi.burst=200']);
    const managedFastClient = await readyTimes(stack, pairsPod);
    // The static NADs' VFs are the first of each rail: free again once the managed runs are released.
    const nads = await createStaticNads({ admin: stack.admin, node: stack.hardware });
    const perRail = nads.length / 2;
    const pair: [string, string] = [nads[0] ?? '', nads[perRail] ?? ''];
    const staticTimes = await readyTimes(stack, (name) => staticPairsPod(name, pair));
    const left = leftoverCount(await settledLeftovers(stack.leftoverSource, 30_000));
    return {
      runs: RUNS,
      managedReadyP50Ms: percentile(managed, 50),
      managedReadyP99Ms: percentile(managed, 99),
      managedQps100ReadyP50Ms: percentile(managedFastClient, 50),
      managedQps100ReadyP99Ms: percentile(managedFastClient, 99),
      staticReadyP50Ms: percentile(staticTimes, 50),
      staticReadyP99Ms: percentile(staticTimes, 99),
      leftovers: left,
    };
  } finally {
    await stack.stop();
  }
}

export const benchmarks = [
  { name: `real node: §14.2 Pod creation → Running, ${String(RUNS)} warm runs, managed vs static NADs`, once: podFigures },
  {
    name: 'real node: npm run demo -- --real-node wall time (binaries and images built)',
    once: () => {
      const started = performance.now();
      const demo = spawnSync(process.execPath, ['--conditions=@sriov-dra/source', DEMO], { encoding: 'utf8' });
      if (demo.status !== 0) throw new Error(`the real-node demo failed:\n${demo.stdout}\n${demo.stderr}`);
      return Promise.resolve({ wallS: (performance.now() - started) / 1000 });
    },
  },
];
