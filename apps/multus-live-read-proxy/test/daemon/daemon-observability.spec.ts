// The daemon as the DaemonSet starts it (src/main.ts, a process of its own): a start that cannot succeed
// is one line on stderr naming the flag or file, with its code and what to do, and a non-zero exit; the
// stack reaches the log only at --log-level debug. A running daemon's /metrics carries the Node.js process
// metrics next to its own, and --log-level sets its log while daemon-config.json's logLevel stays the shim's.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ControlPlane,
  installCrds,
  launchSourceEntry,
  runSourceEntry,
  startControlPlane,
  takenPort,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';

// Each case starts the component from its TypeScript sources, one to three times: seconds apiece on a
// loaded machine. The bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const FLAG_REMEDY = 'fix the flag or option named in the message';

const launch = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => launchSourceEntry(MAIN, args, env);
const daemon = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => runSourceEntry(MAIN, args, env);

let dir: string;
let cp: ControlPlane;
let kubeconfig: string;

/** A daemon-config.json of its own directory: socket, caches and CNI configuration directory. */
function writeConfig(name: string, extra: Readonly<Record<string, unknown>> = {}): string {
  const root = join(dir, name);
  for (const sub of ['run', 'cache', 'net.d']) mkdirSync(join(root, sub), { recursive: true });
  const file = join(root, 'daemon-config.json');
  writeFileSync(
    file,
    JSON.stringify({
      cniVersion: '1.0.0',
      chrootDir: '',
      socketDir: join(root, 'run'),
      cniDir: join(root, 'cache'),
      confDir: join(root, 'net.d'),
      cniConfigDir: join(root, 'net.d'),
      clusterNetwork: 'primary',
      ...extra,
    }),
  );
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-daemon-observability-'));
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  kubeconfig = cp.kubeconfigFor('system:node:worker-a', { groups: ['system:masters'] });
}, 120_000);

afterAll(async () => {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a daemon that cannot start', () => {
  const base = (config: string): string[] => ['--node-name', 'worker-a', '--config', config, '--kubeconfig', kubeconfig, '--metrics-port', '0'];

  it('names a bad flag and exits 2', async () => {
    expect(await daemon(['--node-name', 'worker-a', '--metrics-port', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `InvalidComponentSetting: Flag --metrics-port: "x" is not an integer ≥ -1 — ${FLAG_REMEDY}\n`,
    });
  });

  it('names --log-level for a level pino does not have, from the flag or from LOG_LEVEL', async () => {
    const line = (level: string): string =>
      `InvalidComponentSetting: Flag --log-level: "${level}" is not one of trace, debug, info, warn, error, fatal — ${FLAG_REMEDY}\n`;
    expect(await daemon(['--node-name', 'worker-a', '--log-level', 'verbose'])).toEqual({ code: 2, stdout: '', stderr: line('verbose') });
    expect(await daemon(['--node-name', 'worker-a'], { LOG_LEVEL: 'loud' })).toEqual({ code: 2, stdout: '', stderr: line('loud') });
  });

  it('names --config and the file when it is missing, with no stack unless the level is debug', async () => {
    const missing = join(dir, 'missing', 'daemon-config.json');
    const line = `UnreadableDaemonConfig: --config ${missing}: cannot be read: ENOENT: no such file or directory, open '${missing}' — mount daemon-config.json where --config (MULTUS_DAEMON_CONFIG) points, readable by the daemon, or point the flag at it\n`;
    expect(await daemon(base(missing))).toEqual({ code: 1, stdout: '', stderr: line });

    const debug = await daemon([...base(missing), '--log-level', 'debug']);
    expect({ code: debug.code, stderr: debug.stderr }).toEqual({ code: 1, stderr: line });
    const fatal = debug.stdout
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { level: number; err?: { code?: string; stack?: string } })
      .filter((entry) => entry.level === 60);
    expect(fatal.map((entry) => ({ code: entry.err?.code, stackAt: entry.err?.stack?.split('\n')[1]?.trim().startsWith('at ') }))).toEqual([
      { code: 'UnreadableDaemonConfig', stackAt: true },
    ]);
  });

  it('names the file that is not JSON', async () => {
    const malformed = join(dir, 'malformed.json');
    writeFileSync(malformed, '{');
    expect(await daemon(base(malformed))).toEqual({
      code: 1,
      stdout: '',
      stderr: `MalformedDaemonConfig: ${malformed}: expected a string key at offset 1 at byte 1 — make daemon-config.json one JSON object without repeated keys and restart the daemon\n`,
    });
  });

  it('names --kubeconfig and the file when it is missing', async () => {
    const missing = join(dir, 'missing.kubeconfig');
    expect(await daemon(['--node-name', 'worker-a', '--config', writeConfig('no-kubeconfig'), '--kubeconfig', missing])).toEqual({
      code: 1,
      stdout: '',
      stderr: `InvalidKubeconfig: Flag --kubeconfig: kubeconfig ${missing} cannot be read: ENOENT: no such file or directory, open '${missing}' — point --kubeconfig (or KUBECONFIG) at a readable kubeconfig file, or leave both unset inside a Pod to use its service account\n`,
    });
  });

  it('names --metrics-port when its port is taken', async () => {
    const { port, server } = await takenPort();
    try {
      const exit = await daemon([...base(writeConfig('port-taken')), '--metrics-port', String(port)]);
      expect({ code: exit.code, stderr: exit.stderr }).toEqual({
        code: 1,
        stderr: `InvalidComponentSetting: Flag --metrics-port: port 0.0.0.0:${String(port)} is already in use — stop what listens there or set --metrics-port to a free port\n`,
      });
      // What it logged while starting, but no stack.
      expect(exit.stdout).not.toContain('"stack"');
    } finally {
      server.close();
    }
  }, 30_000);
});

describe('a running daemon', () => {
  const running: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of running) await terminateChild(child);
  });

  /** Starts the daemon and resolves with its log entries once one says `until`. */
  async function serve(config: string, extra: readonly string[], until: RegExp): Promise<{ entries: { level: number; msg: string; metricsPort?: number }[] }> {
    const started = launch(['--node-name', 'worker-a', '--config', config, '--kubeconfig', kubeconfig, '--metrics-port', '0', ...extra]);
    running.push(started.child);
    const entries = (): { level: number; msg: string; metricsPort?: number }[] =>
      started
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { level: number; msg: string; metricsPort?: number });
    await waitFor(`a log entry saying ${String(until)}`, () => Promise.resolve(entries().some((entry) => until.test(entry.msg))), {
      timeoutMs: 30_000,
      alive: () => started.child.exitCode === null,
      describe: started.stdout,
    });
    return { entries: entries() };
  }

  it('serves the Node.js process metrics next to its own on /metrics', async () => {
    const { entries } = await serve(writeConfig('metrics'), [], /^daemon serving$/);
    const port = entries.find((entry) => entry.msg === 'daemon serving')?.metricsPort;
    const response = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
    expect(response.status).toBe(200);
    const body = await response.text();
    const value = (name: string): number | undefined => {
      const line = body.split('\n').find((text) => text.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect({ name, value: value(name) }).toEqual({ name, value: expect.any(Number) });
    }
    expect(body).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    expect(body).toContain('# TYPE sriov_dra_multus_cni_request_duration_seconds histogram');
  }, 60_000);

  it('logs at its --log-level whatever daemon-config.json’s logLevel says', async () => {
    // At warn the daemon says it serves only through the warning that no primary CNI configuration exists yet.
    const quiet = await serve(writeConfig('quiet', { logLevel: 'debug' }), ['--log-level', 'warn'], /^no primary CNI configuration/);
    expect(quiet.entries.some((entry) => entry.level < 40)).toBe(false);
    expect(quiet.entries.map((entry) => entry.msg)).toContain(
      'daemon-config.json key logLevel is not acted on: configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout at its --log-level (LOG_LEVEL)',
    );
    const chatty = await serve(writeConfig('chatty', { logLevel: 'error' }), ['--log-level', 'info'], /^daemon serving$/);
    expect(chatty.entries.map((entry) => entry.msg)).toContain('daemon serving');
  }, 60_000);
});
