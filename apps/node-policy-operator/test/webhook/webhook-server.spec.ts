// The webhook server over real TLS, without an API server: the paths and /healthz, what a malformed or
// foreign request gets back, the decision logs, large reviews, "__proto__" keys in the body, a rotated
// serving certificate, and the `node-policy-operator webhook` command as its own process.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { LocalPki, waitFor } from '@sriov-dra/k8s/testing';
import { type WebhookServer, startWebhookServer } from '../../src/webhook/webhook-server.ts';

// Cases start the component from its TypeScript sources: seconds apiece on a loaded machine. The
// bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const POLICY_PATH = '/validate-sriovnetworknodepolicy';

let dir: string;
let pki: LocalPki;
let ca: Buffer;
let certFile: string;
let keyFile: string;
let server: WebhookServer;
const logs: Record<string, unknown>[] = [];

function install(name: string): void {
  const issued = pki.serving(name);
  // A Secret volume update swaps the files for new ones (new inodes); a rename does the same.
  copyFileSync(issued.cert, `${certFile}.new`);
  copyFileSync(issued.key, `${keyFile}.new`);
  renameSync(`${certFile}.new`, certFile);
  renameSync(`${keyFile}.new`, keyFile);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-webhook-'));
  pki = new LocalPki(dir);
  ca = readFileSync(pki.caCert);
  certFile = join(dir, 'tls.crt');
  keyFile = join(dir, 'tls.key');
  install('first');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  server = await startWebhookServer({
    host: '127.0.0.1',
    port: 0,
    certFile,
    keyFile,
    operatorNamespace: 'sriov-network-operator',
    logger: pino(sink),
    certificateCheckIntervalMs: 50,
  });
}, 30_000);

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

function send(method: 'GET' | 'POST', path: string, body?: string, port = server.port): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      { host: '127.0.0.1', port, path, method, ca, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
        });
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function review(uid: string, object: unknown): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'sriovnetwork.openshift.io', version: 'v1', kind: 'SriovNetworkNodePolicy' },
      resource: { group: 'sriovnetwork.openshift.io', version: 'v1', resource: 'sriovnetworknodepolicies' },
      operation: 'CREATE',
      namespace: 'team-a',
      name: 'rail-a',
      userInfo: { username: 'alice' },
      object,
      dryRun: false,
    },
  };
}

const policy = (dra: unknown, annotations: Record<string, string> = {}) => ({
  apiVersion: 'sriovnetwork.openshift.io/v1',
  kind: 'SriovNetworkNodePolicy',
  metadata: { name: 'rail-a', namespace: 'team-a', annotations },
  spec: { numVfs: 4, dra },
});

async function answer(body: unknown): Promise<{ status: number; review: { response: Record<string, unknown> } }> {
  const reply = await send('POST', POLICY_PATH, typeof body === 'string' ? body : JSON.stringify(body));
  return { status: reply.status, review: JSON.parse(reply.body) as { response: Record<string, unknown> } };
}

describe('webhook server', () => {
  it('serves /healthz over TLS with the configured certificate', async () => {
    await expect(send('GET', '/healthz')).resolves.toEqual({ status: 200, body: 'ok' });
  });

  it('answers a review with its uid, and logs each decision once with the uid', async () => {
    const allowed = await answer(review('uid-allowed', policy({})));
    expect(allowed).toEqual({
      status: 200,
      review: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-allowed', allowed: true } },
    });
    const refused = await answer(review('uid-refused', policy({ attributes: { tier: { int: 1 } } })));
    expect(refused.review.response).toMatchObject({ uid: 'uid-refused', allowed: false, status: { code: 422, reason: 'Invalid' } });
    expect(logs.filter((line) => line['uid'] === 'uid-allowed' || line['uid'] === 'uid-refused')).toEqual([
      expect.objectContaining({ uid: 'uid-allowed', allowed: true, operation: 'CREATE', namespace: 'team-a', name: 'rail-a', msg: 'admitted' }),
      expect.objectContaining({
        uid: 'uid-refused',
        allowed: false,
        msg: 'refused',
        reason: expect.stringContaining('spec.dra.attributes["tier"]: InvalidDRAAttribute'),
      }),
    ]);
  });

  it('answers a body that is not JSON with 400 and keeps serving', async () => {
    const reply = await send('POST', POLICY_PATH, '{"apiVersion": ');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    await expect(send('GET', '/healthz')).resolves.toEqual({ status: 200, body: 'ok' });
  });

  it('answers JSON that is no review with 400 and the reason', async () => {
    const reply = await send('POST', POLICY_PATH, JSON.stringify({ hello: 'world' }));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({
      message: expect.stringMatching(/^the body is not an admission\.k8s\.io\/v1 AdmissionReview \(apiVersion: .+\); send it/),
    });
    expect(logs.some((line) => line['msg'] === 'malformed admission review' && line['path'] === POLICY_PATH)).toBe(true);
  });

  it('refuses through the review a malformed review that has a uid, so the client sees why', async () => {
    const v1beta1 = { ...review('uid-v1beta1', policy({})), apiVersion: 'admission.k8s.io/v1beta1' };
    expect(await answer(v1beta1)).toEqual({
      status: 200,
      review: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: 'uid-v1beta1',
          allowed: false,
          status: { status: 'Failure', code: 400, reason: 'BadRequest', message: expect.stringContaining('(apiVersion: ') },
        },
      },
    });
  });

  it('lets a "__proto__" attribute key reach validation, which refuses it by name', async () => {
    const body = JSON.stringify(review('uid-proto', policy({ attributes: { placeholder: { int: 1 } } }))).replace('"placeholder"', '"__proto__"');
    const { status, review: answered } = await answer(body);
    expect(status).toBe(200);
    expect(answered.response).toMatchObject({ allowed: false, status: { details: { causes: [{ field: 'spec.dra.attributes["__proto__"]' }] } } });
  });

  it('reads a review of several MiB (an UPDATE carries the object twice, each up to the API server’s 3 MiB)', async () => {
    const large = review('uid-large', policy({}, { note: 'x'.repeat(5 * 1024 * 1024) }));
    expect((await answer(large)).review.response).toEqual({ uid: 'uid-large', allowed: true });
  });

  it('serves a rotated certificate to new connections without a restart', async () => {
    const fingerprint = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost' }, () => {
          resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
          socket.end();
        });
        socket.on('error', reject);
      });
    const first = new X509Certificate(readFileSync(certFile)).fingerprint256;
    expect(await fingerprint()).toBe(first);
    install('second');
    const second = new X509Certificate(readFileSync(certFile)).fingerprint256;
    expect(second).not.toBe(first);
    await waitFor('the rotated certificate', async () => (await fingerprint()) === second, { timeoutMs: 5_000 });
    expect(logs.some((line) => line['msg'] === 'serving the rotated TLS certificate')).toBe(true);
  });
});

describe('node-policy-operator webhook (the command)', () => {
  function run(args: readonly string[]) {
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, 'webhook', ...args], {
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    return { child, exited, stdout: () => stdout, stderr: () => stderr };
  }

  it('serves until SIGTERM, then exits 0', async () => {
    const webhook = run([
      '--tls-cert-file',
      certFile,
      '--tls-private-key-file',
      keyFile,
      '--bind-address',
      '127.0.0.1',
      '--port',
      '0',
      '--operator-namespace',
      'sriov-network-operator',
    ]);
    let port = 0;
    await waitFor(
      'the webhook command serving',
      () => {
        const line = webhook
          .stdout()
          .split('\n')
          .find((text) => text.includes('serving admission reviews'));
        port = line === undefined ? 0 : (JSON.parse(line) as { port: number }).port;
        return Promise.resolve(port > 0);
      },
      { timeoutMs: 15_000, alive: () => webhook.child.exitCode === null, describe: () => webhook.stderr() },
    );
    await expect(send('GET', '/healthz', undefined, port)).resolves.toEqual({ status: 200, body: 'ok' });
    webhook.child.kill('SIGTERM');
    expect(await webhook.exited).toBe(0);
  });

  it('exits 2 naming the flag when the operator namespace is missing', async () => {
    const webhook = run(['--tls-cert-file', certFile, '--tls-private-key-file', keyFile]);
    expect(await webhook.exited).toBe(2);
    expect(webhook.stderr()).toMatch(/^InvalidComponentSetting: Flag --operator-namespace: is required/);
  });

  it('exits 1 naming the file when the certificate cannot be read', async () => {
    const webhook = run([
      '--tls-cert-file',
      join(dir, 'missing.crt'),
      '--tls-private-key-file',
      keyFile,
      '--port',
      '0',
      '--operator-namespace',
      'sriov-network-operator',
    ]);
    expect(await webhook.exited).toBe(1);
    expect(webhook.stderr()).toContain(`cannot read the webhook's TLS certificate ${join(dir, 'missing.crt')}`);
  });
});
