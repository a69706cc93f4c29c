// What the client makes of a server that is not a well-behaved API server (a misdirected kubeconfig, a
// proxy rewriting responses): typed errors with stable codes, never a SyntaxError or TypeError. A real
// HTTPS server on loopback answers; only its answers are wrong.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { KubeClient } from '../src/client.ts';
import { LeaderElector } from '../src/leader-election.ts';
import { resourceTypes } from '../src/resources.ts';
import { LocalPki } from '../src/testing/certs.ts';
import { writeKubeconfig } from '../src/testing/kubeconfig.ts';

/** Path → [content type, body]; anything else is 404. */
const answers: Record<string, readonly [string, string]> = {
  '/api/v1/namespaces/n/pods/html': ['application/json', '<html>login</html>'],
  '/api/v1/namespaces/list-without-items/pods': ['application/json', '{"kind":"PodList","metadata":{"resourceVersion":"1"}}'],
  '/api/v1/namespaces/list-of-garbage/pods': ['application/json', '{"metadata":{"resourceVersion":"1"},"items":[null,{"metadata":{}}]}'],
  '/api/v1/namespaces/watch-not-json/pods': ['application/json', '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}}\nnot json\n'],
  '/api/v1/namespaces/watch-not-event/pods': ['application/json', '{"kind":"Status"}\n'],
  '/api/v1/namespaces/watch-without-metadata/pods': ['application/json', '{"type":"MODIFIED","object":{}}\n'],
};

let dir: string;
let server: Server;
let client: (server?: string) => KubeClient;
let caCert: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-garbage-'));
  const pki = new LocalPki(dir);
  const serving = pki.serving('garbage');
  server = createServer({ cert: readFileSync(serving.cert), key: readFileSync(serving.key) }, (request, response) => {
    const answer = answers[new URL(request.url ?? '/', 'https://127.0.0.1').pathname];
    response.writeHead(answer === undefined ? 404 : 200, { 'Content-Type': answer?.[0] ?? 'text/plain' });
    response.end(answer?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = typeof address === 'object' && address !== null ? `https://127.0.0.1:${address.port}` : '';
  client = (at = url) => KubeClient.fromKubeConfig(writeKubeconfig(join(dir, 'garbage.kubeconfig'), at, pki.caCert, 'u', { token: 't' }));
  caCert = pki.caCert;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function codeOf(call: () => Promise<unknown>): Promise<unknown> {
  const error = await call().then(
    () => 'no error',
    (caught: unknown) => caught,
  );
  return isSriovDraError(error) ? error.code : error;
}

/** Reads a watch to its end; the count only gives the loop something to do with each event. */
async function drain(events: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const event of events) if (event !== undefined) count += 1;
  return count;
}

describe('garbage from the server', () => {
  it('a body that is not JSON is MalformedApiResponse naming the object', async () => {
    const error = await client()
      .get(resourceTypes.pod, { namespace: 'n', name: 'html' })
      .catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'MalformedApiResponse')).toBe(true);
    expect(isSriovDraError(error) && error.object).toEqual({ kind: 'Pod', namespace: 'n', name: 'html' });
  });

  it.each(['list-without-items', 'list-of-garbage'])('a list that is not a list (%s) is MalformedApiResponse', async (namespace) => {
    expect(await codeOf(() => client().list(resourceTypes.pod, { namespace }))).toBe('MalformedApiResponse');
  });

  it.each(['watch-not-json', 'watch-not-event', 'watch-without-metadata'])('a watch stream of garbage (%s) is MalformedApiResponse', async (namespace) => {
    const signal = AbortSignal.timeout(10_000);
    expect(await codeOf(() => drain(client().watch(resourceTypes.pod, { namespace, resourceVersion: '1', signal })))).toBe('MalformedApiResponse');
  });

  // Both are refused when the client is made, before any request: a process fails at startup.
  it('a kubeconfig without a usable server is InvalidKubeconfig', () => {
    expect(() => client('not a url')).toThrow(expect.objectContaining({ code: 'InvalidKubeconfig' }));
  });

  it('a kubeconfig whose client certificate cannot be read is InvalidKubeconfig', () => {
    const path = writeKubeconfig(join(dir, 'missing-cert.kubeconfig'), 'https://127.0.0.1:1', caCert, 'u', {
      cert: join(dir, 'missing.crt'),
      key: join(dir, 'missing.key'),
    });
    expect(() => KubeClient.fromKubeConfig(path)).toThrow(expect.objectContaining({ code: 'InvalidKubeconfig' }));
  });

  it('leader election timings that could elect two leaders are InvalidComponentSetting', () => {
    const elector = (): LeaderElector =>
      new LeaderElector(client(), {
        namespace: 'n',
        name: 'l',
        identity: 'i',
        leaseDurationMs: 5_000,
        renewDeadlineMs: 5_000,
        onStartedLeading: () => undefined,
      });
    expect(elector).toThrow(expect.objectContaining({ code: 'InvalidComponentSetting' }));
  });

  it('a client rate limit that admits nothing is InvalidComponentSetting', () => {
    expect(() => new KubeClient(client().config, { qps: 0 })).toThrow(expect.objectContaining({ code: 'InvalidComponentSetting' }));
  });
});
