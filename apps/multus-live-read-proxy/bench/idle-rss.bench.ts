// Resident memory of the daemon process (the built JavaScript, dist/main.js, what the DaemonSet runs) on a
// loopback control plane holding 200 Pods of its node (in its Pod informer) and 200 NADs (in none: a daemon
// reading live, as the chart configures it, does not cache NADs): read every second
// of a 30 s window that starts 15 s after /readyz; the idle RSS is the window's median, its maximum is
// reported beside it. Three launches: as documented (package.json `start`, main.ts's shebang: the V8
// interpreter only, a small young generation, two malloc arenas), the same with V8's compilers, and with no
// flag. Node.js alone, measured the same way, is the baseline.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  createNamespace,
  idleResidentMiB,
  installCrds,
  startControlPlane,
  terminateChild,
  writeJsonKubeconfig,
} from '@sriov-dra/k8s/testing';
import { LAUNCH_ENV, LAUNCH_FLAGS, launchDaemon } from './launch-daemon.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE = 'bench-node';
const NS = 'bench';
const OBJECTS = 200;
const SETTLE_MS = 15_000;
const WINDOW_MS = 30_000;
const TARGET_MB = 80;

interface Launch {
  readonly label: string;
  readonly flags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const launches: readonly Launch[] = [
  {
    label: 'with the memory flags',
    flags: LAUNCH_FLAGS,
    env: LAUNCH_ENV,
  },
  {
    label: 'with the memory flags and its compilers',
    flags: ['--max-semi-space-size=2', '--optimize-for-size'],
    env: LAUNCH_ENV,
  },
  { label: 'without flags', flags: [], env: {} },
];

interface Context {
  readonly cp: ControlPlane;
  readonly dir: string;
  readonly config: string;
  readonly kubeconfig: string;
}

export async function setup(): Promise<Context> {
  execFileSync(process.execPath, [join(ROOT, 'node_modules/nx/dist/bin/nx.js'), 'run', 'multus-live-read-proxy:build', '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dir = mkdtempSync(join(tmpdir(), 'mlrp-bench-idle-'));
  const cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  for (let n = 0; n < OBJECTS; n++) {
    await cp.adminClient.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p-${String(n)}`, namespace: NS },
        spec: { nodeName: NODE, containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
      },
      { namespace: NS },
    );
    await cp.adminClient.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: `net-${String(n)}`, namespace: NS },
        spec: {
          config: JSON.stringify({ cniVersion: '1.0.0', name: `net-${String(n)}`, type: 'bridge', ipam: { type: 'host-local', subnet: '10.1.0.0/16' } }),
        },
      },
      { namespace: NS },
    );
  }
  const config = join(dir, 'daemon-config.json');
  writeFileSync(
    config,
    JSON.stringify({ socketDir: join(dir, 'run'), cniDir: join(dir, 'cache'), confDir: dir, clusterNetwork: 'primary', liveNetworkConfigOnAdd: true }),
  );
  // A DaemonSet Pod uses its service account and reads no kubeconfig; JSON keeps the YAML parser out, as there.
  const kubeconfig = writeJsonKubeconfig(cp.kubeconfig, join(dir, 'kubeconfig.json'));
  return { cp, dir, config, kubeconfig };
}

export async function teardown({ cp, dir }: Context): Promise<void> {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}

export const benchmarks = [
  ...launches.map((launch) => ({
    name: `idle RSS of the Multus daemon (dist/main.js ${launch.label}), ${String(OBJECTS)} Pods in its informer, ${String(OBJECTS)} NADs in the cluster; ${String(WINDOW_MS / 1000)} s from ${String(SETTLE_MS / 1000)} s after /readyz`,
    once: async ({ config, kubeconfig }: Context) => {
      const daemon = await launchDaemon({ config, kubeconfig, nodeName: NODE, flags: launch.flags, env: launch.env });
      try {
        const { median, max } = await idleResidentMiB(daemon.child.pid, performance.now(), SETTLE_MS, WINDOW_MS);
        const mb = (mib: number): number => (mib * 2 ** 20) / 1e6;
        return { idleRssMiB: median, idleRssMB: mb(median), idleMaxRssMiB: max, idleMaxRssMB: mb(max), targetMB: TARGET_MB };
      } finally {
        await daemon.stop();
      }
    },
  })),
  {
    name: 'idle RSS of Node.js alone (baseline, same sampling)',
    once: async () => {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000);'], { stdio: 'ignore' });
      try {
        const { median } = await idleResidentMiB(child.pid, performance.now(), SETTLE_MS, WINDOW_MS);
        return { idleRssMiB: median };
      } finally {
        await terminateChild(child);
      }
    },
  },
];
