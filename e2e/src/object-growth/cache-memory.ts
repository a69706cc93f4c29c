// The resident memory of the components that cache every NAD of the cluster, started from their source
// entries with the launch flags their images use (main.ts's shebang: the V8 interpreter only, a small
// young generation, two malloc arenas): the node-policy-operator (its NAD informer feeds both controllers)
// and the Multus daemon in informer mode (its shared NAD informer, cluster-wide as upstream's). Each is
// started fresh at a step, so its informers list everything then stored, and is read once /readyz passes
// (informers synced) and it has settled.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { idleResidentMiB, waitFor } from '@sriov-dra/k8s/testing';

const OPERATOR_MAIN = fileURLToPath(new URL('../../../apps/node-policy-operator/src/main.ts', import.meta.url));
const DAEMON_MAIN = fileURLToPath(new URL('../../../apps/multus-live-read-proxy/src/main.ts', import.meta.url));
/** Both mains' shebang. */
const LAUNCH_FLAGS = ['--max-semi-space-size=2', '--optimize-for-size', '--no-sparkplug', '--no-maglev', '--no-turbofan'];
const LAUNCH_ENV = { MALLOC_ARENA_MAX: '2' };

export interface CacheMemoryOptions {
  /** A kubeconfig (JSON) with the rights to list and watch what the components cache. */
  readonly kubeconfig: string;
  readonly operatorNamespace: string;
  /** Scratch directory for the daemon's configuration, socket and caches. */
  readonly dir: string;
  readonly settleMs: number;
  readonly windowMs: number;
}

export interface CacheMemory {
  readonly operatorRssMiB: number;
  readonly multusDaemonRssMiB: number;
}

interface Launched {
  readonly child: ChildProcess;
  readonly readyAt: number;
  stop(): Promise<void>;
}

/** Starts `main` from its sources and resolves once the /readyz on the port its `readyLog` line names answers 200. */
async function launch(main: string, args: readonly string[], readyLog: string, portField: string): Promise<Launched> {
  const child = spawn(process.execPath, [...LAUNCH_FLAGS, '--conditions=@sriov-dra/source', main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', ...LAUNCH_ENV },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const port = (): number | undefined => {
    for (const line of output.split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry['msg'] === readyLog && typeof entry[portField] === 'number') return entry[portField];
    }
    return undefined;
  };
  try {
    await waitFor(
      `${main}'s /readyz`,
      async () => {
        const at = port();
        return at !== undefined && (await fetch(`http://127.0.0.1:${String(at)}/readyz`)).ok;
      },
      { timeoutMs: 180_000, alive: () => child.exitCode === null, describe: () => output.slice(-2000) },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, readyAt: performance.now(), stop };
}

function startOperator(options: CacheMemoryOptions): Promise<Launched> {
  return launch(
    OPERATOR_MAIN,
    ['run', '--operator-namespace', options.operatorNamespace, '--kubeconfig', options.kubeconfig, '--health-port', '0'],
    'operator started',
    'healthPort',
  );
}

function startMultusDaemon(options: CacheMemoryOptions): Promise<Launched> {
  const dir = join(options.dir, 'multus');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'daemon-config.json');
  // Informer mode: ADDs read the shared caches (liveNetworkConfigOnAdd false), as upstream Multus does.
  writeFileSync(
    config,
    JSON.stringify({ socketDir: join(dir, 'run'), cniDir: join(dir, 'cache'), confDir: dir, clusterNetwork: 'primary', liveNetworkConfigOnAdd: false }),
  );
  return launch(
    DAEMON_MAIN,
    ['--config', config, '--node-name', 'node-0', '--kubeconfig', options.kubeconfig, '--metrics-port', '0'],
    'daemon serving',
    'metricsPort',
  );
}

/** Both components' idle RSS (median of the window after settling) with everything now stored in their caches. */
export async function cacheMemory(options: CacheMemoryOptions): Promise<CacheMemory> {
  const [operator, daemon] = await Promise.all([startOperator(options), startMultusDaemon(options)]);
  try {
    const [operatorRss, daemonRss] = await Promise.all([
      idleResidentMiB(operator.child.pid, operator.readyAt, options.settleMs, options.windowMs),
      idleResidentMiB(daemon.child.pid, daemon.readyAt, options.settleMs, options.windowMs),
    ]);
    return { operatorRssMiB: operatorRss.median, multusDaemonRssMiB: daemonRss.median };
  } finally {
    await Promise.all([operator.stop(), daemon.stop()]);
  }
}
