// The driver as the DaemonSet starts it (src/main.ts, a process of its own): a start that cannot succeed
// is one line on stderr naming the flag or file, with its code and what to do, and a non-zero exit; the
// stack reaches the log only at --log-level debug. A running driver's /metrics carries the Node.js
// process metrics next to its own.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSourceEntry, takenPort, terminateChild } from '@sriov-dra/k8s/testing';
import { type DriverNode, httpGet, metricValue, startDriverNode } from './driver-node-fixture.ts';
import { launchDriver } from './driver-process.ts';

// Each case starts the component from its TypeScript sources, one to three times: seconds apiece on a
// loaded machine. The bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const driver = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => runSourceEntry(MAIN, args, env);

let node: DriverNode;

beforeAll(async () => {
  node = await startDriverNode('driver-observability', ['driver-rbac.yaml']);
}, 180_000);

afterAll(async () => {
  await node.stop(false);
});

describe('a driver that cannot start', () => {
  it('names a bad flag and exits 2', async () => {
    expect(await driver(['--node-name', 'worker-a', '--healthcheck-port', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'InvalidComponentSetting: Flag --healthcheck-port: "x" is not an integer — fix the flag or option named in the message\n',
    });
  });

  it('names --log-level for a level pino does not have, from the flag or from LOG_LEVEL', async () => {
    const line = (level: string): string =>
      `InvalidComponentSetting: Flag --log-level: "${level}" is not one of trace, debug, info, warn, error, fatal — fix the flag or option named in the message\n`;
    expect(await driver(['--node-name', 'worker-a', '--log-level', 'verbose'])).toEqual({ code: 2, stdout: '', stderr: line('verbose') });
    expect(await driver(['--node-name', 'worker-a'], { LOG_LEVEL: 'loud' })).toEqual({ code: 2, stdout: '', stderr: line('loud') });
  });

  it('names --kubeconfig and the file when it is missing, with no stack unless the level is debug', async () => {
    const missing = path.join(node.dir, 'missing.kubeconfig');
    const line = `InvalidKubeconfig: Flag --kubeconfig: kubeconfig ${missing} cannot be read: ENOENT: no such file or directory, open '${missing}' — point --kubeconfig (or KUBECONFIG) at a readable kubeconfig file, or leave both unset inside a Pod to use its service account\n`;
    const argv = [...node.baseArgv, '--kubeconfig', missing];
    expect(await driver(argv)).toEqual({ code: 1, stdout: '', stderr: line });

    const debug = await driver([...argv, '--log-level', 'debug']);
    expect({ code: debug.code, stderr: debug.stderr }).toEqual({ code: 1, stderr: line });
    const fatal = debug.stdout
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { level: number; err?: { code?: string; stack?: string } })
      .filter((entry) => entry.level === 60);
    expect(fatal.map((entry) => ({ code: entry.err?.code, stackAt: entry.err?.stack?.split('\n')[1]?.trim().startsWith('at ') }))).toEqual([
      { code: 'InvalidKubeconfig', stackAt: true },
    ]);
  });

  it('names the Node it cannot read from an unreachable API server', async () => {
    const { port, server } = await takenPort();
    await new Promise((resolve) => server.close(resolve));
    const kubeconfig = path.join(node.dir, 'unreachable.kubeconfig');
    fs.writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${String(port)}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'unused' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const exit = await driver([...node.baseArgv, '--kubeconfig', kubeconfig]);
    expect({ code: exit.code, stderr: exit.stderr }).toEqual({
      code: 1,
      stderr: `ApiUnavailable: Node worker-a: GET /api/v1/nodes/worker-a: connect ECONNREFUSED 127.0.0.1:${String(port)} — retried with backoff; check the API server endpoint, its certificates and network policy\n`,
    });
    expect(exit.stdout).not.toContain('"stack"');
  }, 60_000);

  it('names --healthcheck-port when its port is taken', async () => {
    const { port, server } = await takenPort();
    try {
      const exit = await driver([...node.baseArgv, '--healthcheck-port', String(port)]);
      expect({ code: exit.code, stderr: exit.stderr }).toEqual({
        code: 1,
        stderr: `InvalidComponentSetting: Flag --healthcheck-port: port 0.0.0.0:${String(port)} is already in use — stop what listens there or set --healthcheck-port to a free port\n`,
      });
      // What it logged while starting, but no stack.
      expect(exit.stdout).not.toContain('"stack"');
    } finally {
      server.close();
    }
  }, 60_000);
});

describe('a running driver', () => {
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child !== undefined) await terminateChild(child);
  });

  it('serves the Node.js process metrics next to its own on /metrics', async () => {
    const log = path.join(node.dir, 'driver.log');
    child = await launchDriver(node.baseArgv, log);
    const serving = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; port?: number })
      .find((entry) => entry.msg === 'health endpoint serving /healthz, /readyz and /metrics');
    const metrics = await httpGet(serving?.port, '/metrics');
    expect(metrics.status).toBe(200);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect({ name, value: metricValue(metrics.body, name) }).toEqual({ name, value: expect.any(Number) });
    }
    expect(metrics.body).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    expect(metrics.body).toContain('# TYPE sriov_dra_driver_published_devices gauge');
  }, 90_000);
});
