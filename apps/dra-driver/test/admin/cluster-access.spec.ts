// An administrator's kubeconfig as kubectl reads it, against a real API server: the cluster's proxy-url
// through an HTTP CONNECT proxy started here, impersonation from the user entry and from --as/--as-group,
// --context, and the namespace a context names.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type AuditEvent, type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { parse, stringify } from 'yaml';
import { sriovDra, sriovDraWith } from './run-sriov-dra.ts';

jest.setTimeout(60_000);

const NS = 'ai-workloads';

let cp: ControlPlane;
let admin: KubeClient;
/** The admin's kubeconfig (system:masters, allowed to impersonate), parsed. */
let base: Kubeconfig;

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context': string;
}

/** The parts of the admin's kubeconfig an edit changes: its one cluster, user and context. */
interface Entries {
  readonly cluster: { name: string; cluster: Record<string, unknown> };
  readonly user: Record<string, unknown>;
  readonly context: Record<string, unknown>;
}
let proxy: Server;
let proxyPort: number;
/** The host:port of every CONNECT the proxy tunnelled. */
const tunnelled: string[] = [];

function kubeconfig(name: string, edit: (config: Kubeconfig, entries: Entries) => void): string {
  const config = structuredClone(base);
  const [cluster] = config.clusters;
  const [user] = config.users;
  const [context] = config.contexts;
  if (cluster === undefined || user === undefined || context === undefined) throw new Error('the admin kubeconfig has no cluster, user or context');
  edit(config, { cluster, user: user.user, context: context.context });
  const path = join(cp.dir, `${name}.kubeconfig`);
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

beforeAll(async () => {
  cp = await startControlPlane({ audit: true });
  admin = cp.adminClient;
  await createNamespace(admin, NS);
  await admin.create(
    resourceTypes.pod,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trainer-0', namespace: NS }, spec: { containers: [{ name: 'c', image: 'registry.invalid/c' }] } },
    { namespace: NS },
  );
  base = parse(readFileSync(cp.kubeconfigFor('admin', { groups: ['system:masters'] }), 'utf8')) as Kubeconfig;
  proxy = createHttpServer((_request, response) => {
    response.writeHead(405).end();
  });
  proxy.on('connect', (request, client, head) => {
    const target = request.url ?? '';
    tunnelled.push(target);
    const [host = '', port = ''] = target.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy address');
  proxyPort = address.port;
}, 120_000);

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) =>
    proxy.close(() => {
      resolve();
    }),
  );
  await cp.stop();
});

async function audited(): Promise<AuditEvent[]> {
  if (cp.auditLog === undefined) throw new Error('the control plane was started without an audit log');
  return cp.auditLog.requests();
}

const HEADER = /^CLAIM +DEVICE +SHADOW +INTERFACE +IPS +STATE\n$/;

describe('sriov-dra with an administrator kubeconfig', () => {
  it('reaches the server through the cluster’s proxy-url, tunnelled with CONNECT', async () => {
    const path = kubeconfig('proxied', (_config, { cluster }) => {
      cluster.cluster['proxy-url'] = `http://127.0.0.1:${proxyPort}`;
    });
    const run = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path);
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
    expect(tunnelled.slice(-1)).toEqual([new URL(cp.server).host]);
  });

  it('without proxy-url, goes through the proxy HTTPS_PROXY names, unless NO_PROXY exempts the server', async () => {
    const path = kubeconfig('direct', () => undefined);
    const before = tunnelled.length;
    const proxied = await sriovDraWith({ HTTPS_PROXY: `http://127.0.0.1:${proxyPort}` }, 'inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path);
    expect(proxied).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
    expect(tunnelled.slice(before)).toEqual([new URL(cp.server).host]);
    const exempt = await sriovDraWith(
      { HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: '127.0.0.1' },
      ...['inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path],
    );
    expect(exempt).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
    expect(tunnelled.slice(before)).toHaveLength(1);
  });

  it('acts as the kubeconfig user’s as and as-groups, and as --as/--as-group override them', async () => {
    const path = kubeconfig('impersonating', (_config, { user }) => {
      user['as'] = 'alice';
      user['as-groups'] = ['ops'];
    });
    const asAlice = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path);
    expect([asAlice.code, asAlice.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: ApiForbidden: Pod ai-workloads\/trainer-0: .*User "alice" cannot get resource "pods"/),
    ]);
    const asBob = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path, '--as', 'bob');
    expect(asBob.stderr).toMatch(/User "bob" cannot get resource "pods"/);
    const asMaster = await sriovDra(
      'inspect',
      'pod',
      `${NS}/trainer-0`,
      '--kubeconfig',
      path,
      '--as',
      'carol',
      '--as-group',
      'ops',
      '--as-group',
      'system:masters',
    );
    expect(asMaster).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
  });

  it('presents the kubeconfig user’s as-uid and as-user-extra too: the API server records whom it acted as', async () => {
    const path = kubeconfig('impersonating-fully', (_config, { user }) => {
      Object.assign(user, {
        as: 'dave',
        'as-uid': 'uid-0042',
        'as-groups': ['system:masters', 'ops'],
        'as-user-extra': { 'reason.example.com/ticket': ['OPS-17'] },
      });
    });
    const run = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', path);
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
    const requests = (await audited()) as (AuditEvent & { impersonatedUser?: unknown })[];
    const read = requests.filter((event) => event.userAgent === 'sriov-dra-cli' && event.requestURI === `/api/v1/namespaces/${NS}/pods/trainer-0`);
    expect(read.map((event) => event.impersonatedUser)).toContainEqual({
      username: 'dave',
      uid: 'uid-0042',
      groups: ['system:masters', 'ops', 'system:authenticated'],
      extra: { 'reason.example.com/ticket': ['OPS-17'] },
    });
  });

  it('uses the context --context names, and that context’s namespace when -n is not given', async () => {
    const path = kubeconfig('contexts', (config, { cluster, context }) => {
      config.contexts = [
        { name: 'elsewhere', context: { ...context, cluster: 'nowhere' } },
        { name: 'workloads', context: { ...context, namespace: NS } },
      ];
      config.clusters.push({ name: 'nowhere', cluster: { ...cluster.cluster, server: 'https://127.0.0.1:1' } });
      config['current-context'] = 'elsewhere';
    });
    const run = await sriovDra('inspect', 'pod', 'trainer-0', '--kubeconfig', path, '--context', 'workloads');
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(HEADER), stderr: '' });
    const current = await sriovDra('inspect', 'pod', 'trainer-0', '--kubeconfig', path);
    expect([current.code, current.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: ApiUnavailable: .*server https:\/\/127\.0\.0\.1:1 \(context "elsewhere"\) did not answer/),
    ]);
  });
});
