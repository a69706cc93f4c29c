// Resident memory of the operator as its Deployment runs it: the built `dist/main.js run`, launched as
// documented (package.json `start`, main.ts's shebang: V8 interpreter only, small young generation,
// MALLOC_ARENA_MAX=2), leading, on the cluster of bench-cluster.ts (200 policies × 50 nodes, 200
// SriovNetworks and their NADs in its informers). Idle is the median RSS from 15 s to 45 s after it has
// generated every per-policy object; its maximum is reported beside it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resourceTypes } from '@sriov-dra/k8s';
import { idleResidentMiB, terminateChild, waitFor, writeJsonKubeconfig } from '@sriov-dra/k8s/testing';
import { type BenchCluster, OPERATOR_NS, OPERATOR_USER, POLICIES, startBenchCluster } from './bench-cluster.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** The documented launch: main.ts's shebang and package.json `start`. */
const LAUNCH_FLAGS = ['--max-semi-space-size=2', '--optimize-for-size', '--no-sparkplug', '--no-maglev', '--no-turbofan'];
const LAUNCH_ENV = { MALLOC_ARENA_MAX: '2' };
const SETTLE_MS = 15_000;
const WINDOW_MS = 30_000;

interface Context extends BenchCluster {
  readonly dir: string;
  readonly kubeconfig: string;
}

export async function setup(): Promise<Context> {
  execFileSync(process.execPath, [join(ROOT, 'node_modules/nx/dist/bin/nx.js'), 'run', 'node-policy-operator:build', '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cluster = await startBenchCluster();
  const dir = mkdtempSync(join(tmpdir(), 'npo-rss-'));
  // A Deployment's Pod reads no kubeconfig at all; JSON keeps the YAML parser out of the measured process.
  const kubeconfig = writeJsonKubeconfig(cluster.cp.kubeconfigFor(OPERATOR_USER, { groups: ['system:masters'] }), join(dir, 'kubeconfig.json'));
  return { ...cluster, dir, kubeconfig };
}

export async function teardown({ cp, dir }: Context): Promise<void> {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}

export const benchmarks = [
  {
    name: `idle RSS of the operator (dist/main.js run, launched as documented), leading, after generating ${String(POLICIES)} per-policy objects; ${String(WINDOW_MS / 1000)} s from ${String(SETTLE_MS / 1000)} s after`,
    once: async ({ kubeconfig, options }: Context) => {
      const child = spawn(
        process.execPath,
        [...LAUNCH_FLAGS, MAIN, 'run', '--operator-namespace', OPERATOR_NS, '--kubeconfig', kubeconfig, '--health-port', '0'],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
          env: { ...process.env, ...LAUNCH_ENV },
        },
      );
      try {
        await waitFor(
          'every per-policy DeviceAttributes generated',
          async () => (await options.client.list(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS })).items.length === POLICIES,
          { timeoutMs: 120_000, alive: () => child.exitCode === null },
        );
        const { median, max } = await idleResidentMiB(child.pid, performance.now(), SETTLE_MS, WINDOW_MS);
        return { idleRssMiB: median, idleRssMB: (median * 1024 * 1024) / 1e6, idleMaxRssMB: (max * 1024 * 1024) / 1e6 };
      } finally {
        await terminateChild(child);
      }
    },
  },
];
