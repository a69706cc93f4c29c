// `node-policy-operator webhook` started as its Deployment starts it, at the default level and at
// --log-level warn, and given the same work: one admission review, one malformed body, then SIGTERM. What
// reaches its JSON log is what that level lets through, and nothing below it.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalPki, freePort, launchSourceEntry, waitFor } from '@sriov-dra/k8s/testing';

// Each case starts the webhook from its TypeScript sources: seconds on a loaded machine. The bound guards
// against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const OPERATOR_NS = 'sriov-network-operator';
const POLICY_PATH = '/validate-sriovnetworknodepolicy';

interface LogEntry {
  readonly level: number;
  readonly msg: string;
}

let dir: string;
let ca: Buffer;
let certFile: string;
let keyFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-webhook-log-level-'));
  const pki = new LocalPki(dir);
  ca = readFileSync(pki.caCert);
  const issued = pki.serving('webhook');
  certFile = issued.cert;
  keyFile = issued.key;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function send(port: number, method: 'GET' | 'POST', path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      { host: '127.0.0.1', port, path, method, ca, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => {
          resolve(response.statusCode ?? 0);
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const admissionReview = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '3f0c6b1e-2a4d-4c8e-9b7a-5d1e0f2a3b4c',
    kind: { group: 'sriovnetwork.openshift.io', version: 'v1', kind: 'SriovNetworkNodePolicy' },
    resource: { group: 'sriovnetwork.openshift.io', version: 'v1', resource: 'sriovnetworknodepolicies' },
    operation: 'CREATE',
    namespace: OPERATOR_NS,
    name: 'rail-a',
    userInfo: { username: 'alice' },
    object: {
      apiVersion: 'sriovnetwork.openshift.io/v1',
      kind: 'SriovNetworkNodePolicy',
      metadata: { name: 'rail-a', namespace: OPERATOR_NS },
      spec: { resourceName: 'rail_a', numVfs: 4, nodeSelector: {}, nicSelector: { pfNames: ['ens1f0'] } },
    },
    dryRun: false,
  },
});

/** Starts the webhook with `args` and `env`, sends it the same work, stops it, and returns its port and log. */
async function logOf(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<{ port: number; log: LogEntry[] }> {
  const port = await freePort();
  const started = launchSourceEntry(
    MAIN,
    [
      'webhook',
      '--operator-namespace',
      OPERATOR_NS,
      '--bind-address',
      '127.0.0.1',
      '--port',
      String(port),
      '--tls-cert-file',
      certFile,
      '--tls-private-key-file',
      keyFile,
      ...args,
    ],
    env,
  );
  try {
    await waitFor('the webhook answering /healthz', async () => (await send(port, 'GET', '/healthz').catch(() => 0)) === 200, {
      timeoutMs: 30_000,
      alive: () => started.child.exitCode === null,
      describe: started.stdout,
    });
    expect(await send(port, 'POST', POLICY_PATH, admissionReview)).toBe(200);
    expect(await send(port, 'POST', POLICY_PATH, '{"kind":"nothing"}')).toBe(400);
  } finally {
    started.child.kill('SIGTERM');
  }
  const exit = await started.exit;
  expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: '' });
  const log = exit.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
  return { port, log };
}

describe('node-policy-operator webhook --log-level', () => {
  it('logs its info lines by default', async () => {
    const { port, log } = await logOf([]);
    // Which lines, not their order: pino writes asynchronously and flushes its queue synchronously at exit,
    // so on a loaded machine a line still being written can land after the last ones.
    expect(log.map((entry) => `${String(entry.level)} ${entry.msg}`).sort()).toEqual(
      [
        // The HTTP server's own line, through the same logger.
        `30 Server listening at https://127.0.0.1:${String(port)}`,
        '30 serving admission reviews',
        '30 admitted',
        '40 malformed admission review',
        '30 stopping the webhook',
      ].sort(),
    );
  });

  it('at warn, from the flag or from LOG_LEVEL, logs the warning and no info line', async () => {
    const expected = [[40, 'malformed admission review']];
    expect((await logOf(['--log-level', 'warn'])).log.map((entry) => [entry.level, entry.msg])).toEqual(expected);
    expect((await logOf([], { LOG_LEVEL: 'warn' })).log.map((entry) => [entry.level, entry.msg])).toEqual(expected);
  });
});
