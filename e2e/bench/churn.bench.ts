// The whole stack's figures (npm run bench e2e): the demo's wall time, and the 50-Pod churn in managed
// mode against the same churn on hand-written static NADs — Pod-ready latency (creation to CNI ADD done),
// API requests per Pod by component counted at the API server (its audit log; watches left out), and
// what leaked. Each churn runs on a fresh stack.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { AuditEvent } from '@sriov-dra/k8s/testing';
import { createOneVfTemplate, createStaticNads, runChurn, workloadLeftovers, type ChurnMode } from '../src/scenarios/churn.ts';
import { createDirectRailMapping, createPcieDeviceClasses } from '../src/scenarios/gpu-nic-pairs.ts';
import { leftoverCount, settledLeftovers } from '../src/stack/leftovers.ts';
import { AGENT_USERS, RELEASE_NAMESPACE, startStack } from '../src/stack/stack.ts';

const DEMO = fileURLToPath(new URL('../src/demo.ts', import.meta.url));
const PODS = 50;
const CONCURRENCY = 8;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Which component made a request, by the API user it authenticated as. */
function componentOf(event: AuditEvent): string {
  const user = event.user.username;
  const serviceAccount = (name: string) => `system:serviceaccount:${RELEASE_NAMESPACE}:${name}`;
  if (user === serviceAccount('dra-driver-sriov')) return 'driver';
  if (user === serviceAccount('multus-live-read-proxy')) return 'multusDaemon';
  if (user === serviceAccount('node-policy-operator')) return 'operator';
  if (user === 'system:kube-scheduler') return 'scheduler';
  if (user === 'system:kube-controller-manager' || user.startsWith('system:serviceaccount:kube-system:')) return 'controllerManager';
  if (user === AGENT_USERS.kubelet) return 'kubelet';
  if (user === AGENT_USERS.whereabouts) return 'whereabouts';
  if (user === AGENT_USERS.gpuDriver) return 'gpuDriver';
  // The test's own creates, deletes and polling, as the admin.
  return 'harness';
}

async function churnFigures(mode: ChurnMode): Promise<Record<string, number>> {
  const stack = await startStack({ target: { kind: 'local', audit: true } });
  try {
    await createPcieDeviceClasses(stack.admin);
    const staticNads = mode === 'static' ? await createStaticNads(stack) : [];
    if (mode === 'managed') {
      await createOneVfTemplate(stack.admin);
      await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
    }
    const audit = stack.cluster.auditLog;
    if (audit === undefined) throw new Error('the stack was started without its audit log');
    const before = (await audit.requests()).length;
    const result = await runChurn(stack, { mode, pods: PODS, concurrency: CONCURRENCY }, staticNads);
    // Let the last releases (claim deletion, shadow finalizers) land before counting and looking for leaks.
    const left = await settledLeftovers(stack, 30_000);
    const workloads = await workloadLeftovers(stack.admin);
    const requests = (await audit.requests()).slice(before).filter((event) => event.verb !== 'watch');
    const perComponent: Record<string, number> = {};
    for (const event of requests) perComponent[componentOf(event)] = (perComponent[componentOf(event)] ?? 0) + 1;
    const leaked = leftoverCount(left) + workloads.length;
    return {
      pods: result.readyMs.length,
      readyP50Ms: percentile(result.readyMs, 50),
      readyP99Ms: percentile(result.readyMs, 99),
      boundP50Ms: percentile(
        result.phasesMs.map((phase) => phase.bound),
        50,
      ),
      preparedP50Ms: percentile(
        result.phasesMs.map((phase) => phase.prepared),
        50,
      ),
      cniAddP50Ms: percentile(
        result.phasesMs.map((phase) => phase.added),
        50,
      ),
      wallS: result.wallMs / 1000,
      ...Object.fromEntries(Object.entries(perComponent).map(([component, count]) => [`requestsPerPod.${component}`, count / PODS])),
      leaked,
    };
  } finally {
    await stack.stop();
  }
}

export const benchmarks = [
  {
    name: 'npm run demo, warm (binaries built): whole stack up, §14.2 Pod, table, inspect, teardown',
    once: () => {
      const started = performance.now();
      const run = spawnSync(process.execPath, ['--conditions=@sriov-dra/source', DEMO], { encoding: 'utf8' });
      return Promise.resolve({ wallS: (performance.now() - started) / 1000, exitCode: run.status ?? -1 });
    },
  },
  { name: `churn ${String(PODS)} Pods, ${String(CONCURRENCY)} at a time, managed shadows (one VF by DeviceClass)`, once: () => churnFigures('managed') },
  { name: `churn ${String(PODS)} Pods, ${String(CONCURRENCY)} at a time, baseline: hand-written static NADs`, once: () => churnFigures('static') },
];
