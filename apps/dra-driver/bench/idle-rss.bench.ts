// Resident memory of the driver process on a node of 256 VFs with a checkpoint of 256 prepared devices,
// against a loopback control plane. The figure that counts is the built JavaScript (dist/main.js, what a
// DaemonSet runs) launched as documented (`npm start`: its V8 flags and environment); the same process from
// the TypeScript sources is measured too, because running .ts costs memory of its own, and so are the built
// JavaScript with the optimizing compilers the launch turns off, and without any flag. This process plays
// the kubelet's part of plugin registration (GetInfo, then NotifyRegistrationStatus) so the driver reaches
// /readyz. /proc/<pid>/status is read 5 s after /readyz (startup garbage still resident), then every second
// of an idle window that starts once the heap has settled and spans two periodic sysfs rescans: the idle RSS
// is the window's median, and its maximum is reported beside it. Processes measured the same way are the
// same-run baselines: Node.js with the driver's modules imported and nothing started, and Node.js alone.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
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
/**
 * Environment of the documented launch. glibc gives each thread that allocates an arena of its own (up to
 * eight per core); libuv's, V8's and the gRPC server's threads each keep a partly used one. Two arenas:
 * 1.0–1.2 MiB less resident memory, measured over three runs.
 */
const LAUNCH_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

interface Launch {
  readonly label: string;
  /** Node.js arguments before the script. */
  readonly flags: readonly string[];
  /** Environment variables added to this process's own. */
  readonly env: Readonly<Record<string, string>>;
  readonly main: string;
  /** The module whose import alone is the "modules loaded, nothing started" baseline. */
  readonly driverModule: string;
}

const launches: readonly Launch[] = [
  {
    label: 'dist/main.js',
    flags: LAUNCH_FLAGS,
    env: LAUNCH_ENV,
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
  {
    label: 'src/main.ts',
    flags: [...LAUNCH_FLAGS, SOURCE_CONDITION],
    env: LAUNCH_ENV,
    main: fileURLToPath(new URL('../src/main.ts', import.meta.url)),
    driverModule: pathToFileURL(fileURLToPath(new URL('../src/driver.ts', import.meta.url))).href,
  },
  {
    label: 'dist/main.js with its compilers',
    flags: MEMORY_FLAGS,
    env: LAUNCH_ENV,
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
  {
    label: 'dist/main.js without V8 flags',
    flags: [],
    env: {},
    main: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
    driverModule: new URL('../dist/driver.js', import.meta.url).href,
  },
];
/** The first reading after /readyz: what the process holds right after startup. */
const EARLY_MS = 5_000;
/**
 * When the idle window starts after /readyz: V8's memory reducer has compacted the heap left by startup by
 * then (at 5 s it has not: measured 5–7 MiB more), and the baselines are read after the same delay.
 */
const SETTLE_MS = 15_000;
/** Two periods of the driver's default 30 s rescan of all 256 VFs, so the window holds two rescans. */
const WINDOW_MS = 60_000;
const SAMPLE_EVERY_MS = 1_000;
const READY_TIMEOUT_MS = 120_000;
const TARGET_MB = 80;

interface Context {
  readonly cp: ControlPlane;
  readonly dir: string;
  /** The checkpoint every measured process starts from. */
  readonly checkpoint: string;
  /**
   * The control plane's kubeconfig as JSON. A DaemonSet Pod reads no kubeconfig at all (its service
   * account), so it never loads a YAML parser; a JSON kubeconfig gives the measured process the same
   * modules. With the YAML file the parser adds about 3.6 MiB.
   */
  readonly kubeconfig: string;
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
  const cp = await startBenchCluster();
  const kubeconfig = join(dir, 'kubeconfig.json');
  writeFileSync(kubeconfig, JSON.stringify(parseYaml(readFileSync(cp.kubeconfig, 'utf8'))), { mode: 0o600 });
  return { cp, dir, checkpoint, kubeconfig };
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
async function idleBaseline(args: readonly string[], env: Readonly<Record<string, string>>): Promise<number> {
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const output = collectOutput(child);
  try {
    await waitFor('baseline process ready', () => Promise.resolve(output().includes('ready\n')), {
      timeoutMs: READY_TIMEOUT_MS,
      alive: () => child.exitCode === null,
      describe: output,
    });
    await delay(SETTLE_MS);
    return residentMiB(child.pid).rss;
  } finally {
    await stopChild(child);
  }
}

export const benchmarks = launches.map((launch) => ({
  name: `idle RSS of the driver process (${[...Object.entries(launch.env).map(([key, value]) => `${key}=${value}`), 'node', ...launch.flags, launch.label].join(' ')}) on ${NODE_VFS} VFs, all published, ${NODE_VFS} devices checkpointed; idle from ${SETTLE_MS / 1000} s to ${(SETTLE_MS + WINDOW_MS) / 1000} s after /readyz (two rescans)`,
  once: async ({ dir: root, checkpoint, kubeconfig }: Context) => {
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
        ...['--node-name', BENCH_NODE, '--kubeconfig', kubeconfig, '--namespace', DRIVER_NAMESPACE, '--sysfs-root', join(root, 'sys')],
        ...['--cdi-root', join(dir, 'cdi'), '--kubelet-plugins-directory-path', join(dir, 'plugins')],
        ...['--kubelet-registrar-directory-path', registrarDir, '--healthcheck-port', '0'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...launch.env } },
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
      await delay(Math.max(0, readyAt + EARLY_MS - performance.now()));
      const early = residentMiB(child.pid);
      await delay(Math.max(0, readyAt + SETTLE_MS - performance.now()));
      const samples: number[] = [];
      while (performance.now() < readyAt + SETTLE_MS + WINDOW_MS) {
        samples.push(residentMiB(child.pid).rss);
        await delay(SAMPLE_EVERY_MS);
      }
      samples.sort((a, b) => a - b);
      const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
      const max = samples.at(-1) ?? Number.NaN;
      const mb = (mib: number): number => (mib * 2 ** 20) / 1e6;
      return {
        publishedDevices: NODE_VFS,
        checkpointedDevices: NODE_VFS,
        rssAt5sMiB: early.rss,
        idleRssMiB: median,
        idleRssMB: mb(median),
        idleMaxRssMiB: max,
        idleMaxRssMB: mb(max),
        peakRssMiB: residentMiB(child.pid).peak,
        driverModulesOnlyRssMiB: await idleBaseline(
          [
            ...launch.flags,
            '--input-type=module',
            '-e',
            `await import(${JSON.stringify(launch.driverModule)}); process.stdout.write('ready\\n'); setInterval(() => {}, 60_000);`,
          ],
          launch.env,
        ),
        bareNodeRssMiB: await idleBaseline(['-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 60_000);"], {}),
        targetMB: TARGET_MB,
      };
    } finally {
      await stopChild(child);
    }
  },
}));
