// A 401 makes rotating credentials refresh and the request go once more; a static token is not
// retried. A real HTTPS server on loopback accepts only the token "fresh".
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { stringify } from 'yaml';
import { KubeClient } from '../src/client.ts';
import { resourceTypes } from '../src/resources.ts';
import { LocalPki } from '../src/testing/certs.ts';

let dir: string;
let server: Server;
let url: string;
let caCert: string;
/** The Authorization headers the server saw, in order. */
let seen: (string | undefined)[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-refresh-'));
  const pki = new LocalPki(dir);
  caCert = pki.caCert;
  const serving = pki.serving('refresh');
  server = createServer({ cert: readFileSync(serving.cert), key: readFileSync(serving.key) }, (request, response) => {
    seen.push(request.headers.authorization);
    const ok = request.headers.authorization === 'Bearer fresh';
    response.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify(
        ok
          ? { metadata: { name: 'p', namespace: 'n', uid: 'u', resourceVersion: '1' } }
          : { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = typeof address === 'object' && address !== null ? `https://127.0.0.1:${address.port}` : '';
});

beforeEach(() => {
  seen = [];
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function clientFor(name: string, user: Record<string, unknown>): KubeClient {
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    path,
    stringify({
      clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority': caCert } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return KubeClient.fromKubeConfig(path);
}

const getPod = (client: KubeClient) => client.get(resourceTypes.pod, { namespace: 'n', name: 'p' });

describe('credentials refreshed after a 401', () => {
  it('a rotated token file is re-read and the request sent once more', async () => {
    writeFileSync(join(dir, 'token'), 'stale');
    const client = clientFor('token-file', { tokenFile: 'token' });
    writeFileSync(join(dir, 'token'), 'fresh');
    expect((await getPod(client)).metadata.uid).toBe('u');
    expect(seen).toEqual(['Bearer stale', 'Bearer fresh']);
    client.close();
  });

  it('an exec plugin runs again for a new credential', async () => {
    writeFileSync(join(dir, 'exec-token'), 'stale');
    writeFileSync(
      join(dir, 'plugin.sh'),
      `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}' "$(cat ${join(dir, 'exec-token')})"\n`,
    );
    chmodSync(join(dir, 'plugin.sh'), 0o755);
    const client = clientFor('exec', { exec: { command: './plugin.sh', apiVersion: 'client.authentication.k8s.io/v1beta1' } });
    expect(await getPod(client).catch((error: unknown) => error)).toMatchObject({ code: 'ApiUnauthorized' });
    expect(seen).toEqual(['Bearer stale', 'Bearer stale']);
    writeFileSync(join(dir, 'exec-token'), 'fresh');
    expect((await getPod(client)).metadata.uid).toBe('u');
    expect(seen).toEqual(['Bearer stale', 'Bearer stale', 'Bearer stale', 'Bearer fresh']);
    client.close();
  });

  it('a static token is not retried', async () => {
    const client = clientFor('static', { token: 'stale' });
    const error = await getPod(client).catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'ApiUnauthorized')).toBe(true);
    expect(seen).toEqual(['Bearer stale']);
    client.close();
  });
});
