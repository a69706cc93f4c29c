// What a request carries for a kubeconfig's username/password, impersonation and oidc auth-provider,
// seen by a local HTTPS server that plays the API server and the identity provider.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { KubeClient } from './client.ts';
import { loadKubeconfig } from './kubeconfig.ts';
import { resourceTypes } from './resources.ts';
import { LocalPki } from './testing/certs.ts';

let dir: string;
let server: Server;
let base: string;
let caCert: string;
/** The headers of each API request, and the bodies of each token request, in order. */
const apiRequests: IncomingHttpHeaders[] = [];
const tokenRequests: { authorization: string | undefined; body: string }[] = [];
/** The id tokens the API server accepts; anything else is answered 401. */
const accepted = new Set<string>();
let issued = 0;

const jwt = (claims: object): string => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-kubeconfig-auth-'));
  const pki = new LocalPki(dir);
  caCert = pki.caCert;
  const serving = pki.serving('api');
  server = createServer({ cert: readFileSync(serving.cert), key: readFileSync(serving.key) }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const json = (status: number, body: unknown): void => {
        response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      };
      if (request.url === '/issuer/.well-known/openid-configuration') {
        json(200, { issuer: `${base}/issuer`, token_endpoint: `${base}/issuer/token` });
        return;
      }
      if (request.url === '/issuer/token') {
        tokenRequests.push({ authorization: request.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
        issued += 1;
        const idToken = jwt({ exp: 4_000_000_000, n: issued });
        accepted.add(idToken);
        json(200, { id_token: idToken, refresh_token: `refresh-${issued}` });
        return;
      }
      apiRequests.push(request.headers);
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (bearer !== undefined && bearer.startsWith('e30.') && !accepted.has(bearer)) {
        json(401, { kind: 'Status', code: 401, reason: 'Unauthorized' });
        return;
      }
      json(200, { metadata: { name: 'trainer-0', namespace: 'ns', uid: 'u', resourceVersion: '1' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  base = `https://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  rmSync(dir, { recursive: true, force: true });
});

let written = 0;
/** A client for a one-context kubeconfig of this server whose user entry is `user`. */
function clientFor(user: Record<string, unknown>, now?: () => number): KubeClient {
  written += 1;
  const path = join(dir, `config-${written}`);
  writeFileSync(
    path,
    stringify({
      clusters: [{ name: 'k', cluster: { server: base, 'certificate-authority': caCert } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return KubeClient.fromConfig(loadKubeconfig([path], now === undefined ? {} : { now }));
}

async function headersOfOneRequest(client: KubeClient): Promise<IncomingHttpHeaders> {
  const before = apiRequests.length;
  try {
    await client.get(resourceTypes.pod, { namespace: 'ns', name: 'trainer-0' });
  } finally {
    client.close();
  }
  expect(apiRequests).toHaveLength(before + 1);
  return apiRequests[before] ?? {};
}

describe('kubeconfig authentication on the wire', () => {
  it('username and password: HTTP basic authentication', async () => {
    const headers = await headersOfOneRequest(clientFor({ username: 'admin', password: 's3cret:x' }));
    expect(headers.authorization).toBe(`Basic ${Buffer.from('admin:s3cret:x').toString('base64')}`);
  });

  it('as, as-uid, as-groups, as-user-extra: the Impersonate-* headers, one Impersonate-Group per group, extra keys percent-encoded', async () => {
    const headers = await headersOfOneRequest(
      clientFor({ token: 't', as: 'alice', 'as-uid': '42', 'as-groups': ['ops', 'dev'], 'as-user-extra': { 'scopes.example.com/a b': ['x', 'y'] } }),
    );
    expect(headers).toMatchObject({
      authorization: 'Bearer t',
      'impersonate-user': 'alice',
      'impersonate-uid': '42',
      'impersonate-group': 'ops, dev',
      'impersonate-extra-scopes.example.com%2fa%20b': 'x, y',
    });
  });

  it('oidc: an expired id-token is renewed at the issuer with the refresh-token, and again after a 401', async () => {
    const expired = jwt({ exp: 1_000 });
    const provider = {
      name: 'oidc',
      config: {
        'client-id': 'kubectl',
        'client-secret': 'shh',
        'idp-issuer-url': `${base}/issuer`,
        'idp-certificate-authority': caCert,
        'id-token': expired,
        'refresh-token': 'refresh-0',
      },
    };
    const client = clientFor({ 'auth-provider': provider }, () => 2_000_000);
    try {
      await client.get(resourceTypes.pod, { namespace: 'ns', name: 'trainer-0' });
      expect(tokenRequests).toEqual([
        { authorization: `Basic ${Buffer.from('kubectl:shh').toString('base64')}`, body: 'grant_type=refresh_token&refresh_token=refresh-0' },
      ]);
      expect(apiRequests.at(-1)?.authorization).toBe(`Bearer ${jwt({ exp: 4_000_000_000, n: 1 })}`);
      accepted.clear();
      await client.get(resourceTypes.pod, { namespace: 'ns', name: 'trainer-0' });
      expect(tokenRequests.map((request) => request.body)).toEqual([
        'grant_type=refresh_token&refresh_token=refresh-0',
        'grant_type=refresh_token&refresh_token=refresh-1',
      ]);
      expect(apiRequests.at(-1)?.authorization).toBe(`Bearer ${jwt({ exp: 4_000_000_000, n: 2 })}`);
    } finally {
      client.close();
    }
  });
});
