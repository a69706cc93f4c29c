// Resident memory of the driver process on a node of 256 VFs with a checkpoint of 256 prepared devices,
// against a loopback control plane. The figure that counts is the built JavaScript (dist/main.js, what a
// DaemonSet runs) with the V8 flags of the documented launch (`npm start`); the same process from the
// TypeScript sources is measured too, because running .ts costs memory of its own, and so are the built
// JavaScript with the optimizing compilers the launch turns off, and without any V8 flag. This process plays
// the kubelet's part of plugin registration (GetInfo, then NotifyRegistrationStatus) so the driver
// reaches /readyz; /proc/<pid>/status is read after it has been ready and idle for a few seconds, and
// again after its first periodic sysfs rescan. Processes measured the same way are the same-run
// baselines: Node.js with the driver's modules imported and nothing started, and Node.js alone.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ServiceError, credentials } from '@grpc/grpc-js';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { registrationV1 } from '@sriov-dra/kubelet-api';
import { type ControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { encodeCheckpoint } from '../src/checkpoint/checkpoint-codec.ts';
import { DRIVER_NAMESPACE, startBenchCluster } from './bench-cluster.ts';
import { BENCH_NODE, NODE_VFS, discoverNode, generateNode } from './fake-node.ts';
import { preparedRecord } from './manual-claims.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_CONDITION = '--conditions=@sriov-dra/source';

/**
 * A small young generation, so less short-lived garbage is promoted; and V8's sizing for memory, under which
 * its memory reducer compacts the heap once the driver is idle (otherwise it judges the allocation rate of
 * module loading still high and never does).
 */
const MEMORY_FLAGS = ['--max-semi-space-size=2', '--optimize-for-size'] as const;
/**
 * V8 flags of the documented launch (package.json `start`, main.ts's shebang); see the README's benchmark
 * table. JavaScript runs in V8's interpreter only: without the baseline and optimizing compilers the process
 * neither maps their code nor keeps what they compile.
 */
const LAUNCH_FLAGS = [...MEMORY_FLAGS, '--no-sparkplug', '--no-maglev', '--no-turbofan'] as const;

interface Launch {
  readonly label: string;
  /** Node.js arguments before the script. */
  readonly flags: readonly string[];
  readonly main: string;
  /** The module whose import alone is the "modules loaded, nothing started" baseline. */
  readonly driverModule: string;
}

const launches: readonly Launch[] = [
  {
    label: 'dist/main.js',
    flags: LAUNCH_FLAGS,
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
  {
    label: 'src/main.ts',
    flags: [...LAUNCH_FLAGS, SOURCE_CONDITION],
    main: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
    driverModule: pathToFileURL(fileURLToPath(new URL('../src/driver.ts', import.meta.url))).href,
  },
  {
    label: 'dist/main.js with its compilers',
    flags: MEMORY_FLAGS,
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
  {
    label: 'dist/main.js without V8 flags',
    flags: [],
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
];
/** How long the process sits idle after /readyz: long enough for startup garbage to be collected. */
const IDLE_MS = 5_000;
/** The driver's default rescan period; the second reading comes after one rescan of all 256 VFs. */
const RESCAN_MS = 30_000;
const READY_TIMEOUT_MS = 120_000;
const TARGET_MB = 80;

interface Context {
  readonly cp: ControlPlane;
  readonly dir: string;
  /** The checkpoint every measured process starts from. */
  readonly checkpoint: string;
}

export async function setup(): Promise<Context> {
  // The dist/ measured must be built from the sources of this checkout (nx rebuilds only what changed).
  execFileSync(process.execPath, [join(ROOT, 'node_modules/nx/dist/bin/nx.js'), 'run', 'dra-driver:build', '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dir = mkdtempSync(join(tmpdir(), 'dra-driver-bench-idle-'));
  const sysfsRoot = join(dir, 'sys');
  generateNode(sysfsRoot);
  const vfs = await discoverNode(sysfsRoot);
  // Every VF prepared, two per claim: the checkpoint a full node's driver loads when it restarts.
  const records = Array.from({ length: NODE_VFS / 2 }, (_unused, n) => preparedRecord(n, vfs));
  const checkpoint = encodeCheckpoint(new Map(records.map((record) => [record.claimUID, record])));
  return { cp: await startBenchCluster(), dir, checkpoint };
}

export async function teardown({ cp, dir }: Context): Promise<void> {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** VmRSS and VmHWM (peak) of a live process, in MiB. */
function residentMiB(pid: number | undefined): { rss: number; peak: number } {
  if (pid === undefined) throw new Error('the measured process has no pid');
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (match?.[1] === undefined) throw new Error(`/proc/${String(pid)}/status has no ${field}`);
    return Number(match[1]);
  };
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Everything the process wrote, for waiting on its log lines and for error messages. */
function collectOutput(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return () => output;
}

/** The JSON log lines of the driver (pino on stdout). */
function logLines(output: string): { msg?: string; port?: number; claims?: number; devices?: number }[] {
  return output.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string }] : []));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const forced = setTimeout(() => child.kill('SIGKILL'), 40_000);
  await exited;
  clearTimeout(forced);
}

/** What the kubelet's plugin watcher does when a registration socket appears. */
async function registerAsKubelet(socket: string): Promise<void> {
  const client = new registrationV1.RegistrationClient(`unix:${socket}`, credentials.createInsecure());
  const unary = <Req, Res>(call: (request: Req, callback: (error: ServiceError | null, response: Res) => void) => unknown, request: Req): Promise<Res> =>
    new Promise((resolve, reject) => {
      call(request, (error, response) => {
        if (error === null) resolve(response);
        else reject(error);
      });
    });
  try {
    const info = await unary<registrationV1.InfoRequest, registrationV1.PluginInfo>(client.getInfo.bind(client), {});
    if (info.name !== DRIVER_NAME) throw new Error(`the registration socket answered for ${info.name}`);
    await unary(client.notifyRegistrationStatus.bind(client), { pluginRegistered: true, error: '' });
  } finally {
    client.close();
  }
}

/** A process that prints "ready" and then only waits: the baselines. */
async function idleBaseline(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  try {
    await waitFor('baseline process ready', () => Promise.resolve(output().includes('ready\n')), {
      timeoutMs: READY_TIMEOUT_MS,
      alive: () => child.exitCode === null,
      describe: output,
    });
    await delay(IDLE_MS);
    return residentMiB(child.pid).rss;
  } finally {
    await stopChild(child);
  }
}

export const benchmarks = launches.map((launch) => ({
  name: `idle RSS of the driver process (node ${[...launch.flags, launch.label].join(' ')}) on ${NODE_VFS} VFs, all published, ${NODE_VFS} devices checkpointed; ${IDLE_MS / 1000} s after /readyz and after its first ${RESCAN_MS / 1000} s rescan`,
  once: async ({ cp, dir: root, checkpoint }: Context) => {
    // Plugin, registrar and CDI directories of its own per process: nothing left by the previous one.
    const dir = mkdtempSync(join(root, 'run-'));
    const pluginDir = join(dir, 'plugins', DRIVER_NAME);
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(join(pluginDir, 'checkpoint.json'), checkpoint);
    const registrarDir = join(dir, 'plugins_registry');
    const child = spawn(
      process.execPath,
      [
        ...launch.flags,
        launch.main,
        ...['--node-name', BENCH_NODE, '--kubeconfig', cp.kubeconfig, '--namespace', DRIVER_NAMESPACE, '--sysfs-root', join(root, 'sys')],
        ...['--cdi-root', join(dir, 'cdi'), '--kubelet-plugins-directory-path', join(dir, 'plugins')],
        ...['--kubelet-registrar-directory-path', registrarDir, '--healthcheck-port', '0'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = collectOutput(child);
    const alive = (): boolean => child.exitCode === null;
    try {
      const registration = join(registrarDir, `${DRIVER_NAME}-reg.sock`);
      const port = (): number | undefined => logLines(output()).find((line) => line.msg === 'health endpoint serving /healthz, /readyz and /metrics')?.port;
      await waitFor('registration socket and health endpoint', () => Promise.resolve(port() !== undefined && existsSync(registration)), {
        timeoutMs: READY_TIMEOUT_MS,
        alive,
        describe: output,
      });
      await registerAsKubelet(registration);
      const get = async (route: string): Promise<{ status: number; body: string }> => {
        const response = await fetch(`http://127.0.0.1:${String(port())}${route}`);
        return { status: response.status, body: await response.text() };
      };
      await waitFor('/readyz', async () => (await get('/readyz')).status === 200, { timeoutMs: READY_TIMEOUT_MS, alive, describe: output });
      const readyAt = performance.now();

      const published = /^sriov_dra_driver_published_devices (\d+)$/m.exec((await get('/metrics')).body)?.[1];
      const checkpointed = logLines(output()).find((line) => line.msg === 'checkpoint loaded')?.claims;
      if (Number(published) !== NODE_VFS || checkpointed !== NODE_VFS / 2) {
        throw new Error(`the driver published ${String(published)} devices and loaded ${String(checkpointed)} claims, not ${NODE_VFS} and ${NODE_VFS / 2}`);
      }
      await delay(IDLE_MS);
      const idle = residentMiB(child.pid);
      await delay(Math.max(0, readyAt + RESCAN_MS + IDLE_MS - performance.now()));
      const afterRescan = residentMiB(child.pid);
      return {
        publishedDevices: NODE_VFS,
        checkpointedDevices: NODE_VFS,
        idleRssMiB: idle.rss,
        idleRssMB: (idle.rss * 2 ** 20) / 1e6,
        afterRescanRssMiB: afterRescan.rss,
        peakRssMiB: afterRescan.peak,
        driverModulesOnlyRssMiB: await idleBaseline([
          ...launch.flags,
          '--input-type=module',
          '-e',
          `await import(${JSON.stringify(launch.driverModule)}); process.stdout.write('ready\\n'); setInterval(() => {}, 60_000);`,
        ]),
        bareNodeRssMiB: await idleBaseline(['-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 60_000);"]),
        targetMB: TARGET_MB,
      };
    } finally {
      await stopChild(child);
    }
  },
}));
