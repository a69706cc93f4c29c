import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { stringify } from 'yaml';
import type { ClientConfig } from './client-config.ts';
import { defaultKubeconfigFiles, loadKubeconfig } from './kubeconfig.ts';

let dir: string;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-kubeconfig-'));
  mkdirSync(join(dir, 'pki'));
  for (const name of ['ca.crt', 'client.crt', 'client.key']) writeFileSync(join(dir, 'pki', name), `file ${name}`);
  writeFileSync(join(dir, 'pki', 'token'), 'file-token\n');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let written = 0;
/** Writes a kubeconfig into `at` (default: the test directory) and returns its path. */
function kubeconfig(content: unknown, at = dir): string {
  written += 1;
  const path = join(at, `config-${written}`);
  writeFileSync(path, typeof content === 'string' ? content : stringify(content));
  return path;
}

/** One context "c" → cluster "k" and user "u", each overridable. */
function single(cluster: Record<string, unknown>, user: Record<string, unknown> | null = {}, context: Record<string, unknown> = {}): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', ...context } }],
    'current-context': 'c',
  };
}

function load(content: unknown, options: { context?: string; now?: () => number } = {}): ClientConfig {
  return loadKubeconfig([kubeconfig(content)], options);
}

function failure(call: () => unknown): { code: string; message: string } {
  try {
    call();
  } catch (error) {
    if (isSriovDraError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('no error');
}

async function token(config: ClientConfig): Promise<string | undefined> {
  return (await config.credentials?.current())?.token;
}

describe('kubeconfig fields', () => {
  it.each([
    ['certificate-authority-data', { 'certificate-authority-data': b64('inline ca') }, { ca: 'inline ca' }],
    ['certificate-authority, relative to the kubeconfig', { 'certificate-authority': 'pki/ca.crt' }, { ca: 'file ca.crt' }],
    ['certificate-authority, absolute', { 'certificate-authority': '/ABS/pki/ca.crt' }, { ca: 'file ca.crt' }],
    ['data over file', { 'certificate-authority-data': b64('inline ca'), 'certificate-authority': 'pki/ca.crt' }, { ca: 'inline ca' }],
    ['no CA: the system roots', {}, { ca: undefined }],
    ['insecure-skip-tls-verify', { 'insecure-skip-tls-verify': true }, { rejectUnauthorized: false }],
    ['tls-server-name', { 'tls-server-name': 'kubernetes.default' }, { servername: 'kubernetes.default', rejectUnauthorized: true }],
  ])('cluster %s', (_case, cluster, expected) => {
    const resolved = load(single(JSON.parse(JSON.stringify(cluster).replace('/ABS', dir)) as Record<string, unknown>));
    const { ca, ...rest } = expected as { ca?: string };
    if ('ca' in expected) expect(resolved.tls.ca?.toString()).toBe(ca);
    expect(resolved.tls).toMatchObject(rest);
    expect(resolved.server.href).toBe('https://127.0.0.1:6443/');
  });

  it.each([
    ['data', { 'client-certificate-data': b64('inline cert'), 'client-key-data': b64('inline key') }, ['inline cert', 'inline key']],
    ['files, relative', { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' }, ['file client.crt', 'file client.key']],
    [
      'data over files',
      { 'client-certificate-data': b64('inline cert'), 'client-key-data': b64('inline key'), 'client-certificate': 'x', 'client-key': 'y' },
      ['inline cert', 'inline key'],
    ],
  ])('user client certificate from %s', async (_case, user, [cert, key]) => {
    const resolved = load(single({}, user));
    expect([resolved.tls.cert?.toString(), resolved.tls.key?.toString()]).toEqual([cert, key]);
    expect(resolved.credentials).toBeUndefined();
    expect(await token(resolved)).toBeUndefined();
  });

  it.each([
    ['token', { token: 'inline-token' }, 'inline-token'],
    ['tokenFile, relative', { tokenFile: 'pki/token' }, 'file-token'],
    ['tokenFile over token (client-go)', { tokenFile: 'pki/token', token: 'inline-token' }, 'file-token'],
    ['token over exec', { token: 'inline-token', exec: { command: 'absent', apiVersion: 'client.authentication.k8s.io/v1' } }, 'inline-token'],
  ])('user %s', async (_case, user, expected) => {
    expect(await token(load(single({}, user)))).toBe(expected);
  });

  it('username and password are basic authentication, below a token (client-go)', async () => {
    expect(await load(single({}, { username: 'admin', password: 's3cret' })).credentials?.current()).toEqual({
      basic: { username: 'admin', password: 's3cret' },
    });
    expect(await token(load(single({}, { username: 'admin', password: 's3cret', token: 'inline-token' })))).toBe('inline-token');
  });

  it('an oidc auth-provider presents its id-token while it is valid', async () => {
    const jwt = (exp: number): string => `e30.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.sig`;
    const config = { 'client-id': 'kubectl', 'idp-issuer-url': 'https://issuer.invalid', 'id-token': jwt(2_000) };
    expect(await token(load(single({}, { 'auth-provider': { name: 'oidc', config } }), { now: () => 1_000_000 }))).toBe(jwt(2_000));
    const expired = load(single({}, { 'auth-provider': { name: 'oidc', config } }), { now: () => 3_000_000 });
    await expect(expired.credentials?.current()).rejects.toThrow(/the oidc id-token has expired and there is no refresh-token/);
  });

  it('proxy-url and impersonation are carried to the client', () => {
    const resolved = load(
      single(
        { 'proxy-url': 'http://proxy.example:3128' },
        { token: 't', as: 'alice', 'as-uid': '42', 'as-groups': ['ops', 'dev'], 'as-user-extra': { 'scopes.example/x': ['a'] } },
      ),
    );
    expect(resolved.proxy?.href).toBe('http://proxy.example:3128/');
    expect(resolved.impersonate).toEqual({ user: 'alice', uid: '42', groups: ['ops', 'dev'], extra: { 'scopes.example/x': ['a'] } });
    expect(load(single({})).impersonate).toBeUndefined();
  });

  it('a context without a user is anonymous; its namespace is kept', () => {
    const resolved = load({ ...(single({}) as object), contexts: [{ name: 'c', context: { cluster: 'k', namespace: 'ns' } }] });
    expect(resolved).toMatchObject({ context: 'c', clusterName: 'k', userName: '', namespace: 'ns', credentials: undefined });
  });

  it('a named context replaces current-context', () => {
    const content = single({});
    const other = {
      ...(content as object),
      contexts: [
        { name: 'c', context: { cluster: 'k', user: 'u' } },
        { name: 'd', context: { cluster: 'k', user: 'u', namespace: 'd' } },
      ],
    };
    expect(load(other, { context: 'd' })).toMatchObject({ context: 'd', namespace: 'd' });
  });

  it('reads JSON, YAML and a YAML flow mapping that is not JSON alike', async () => {
    const content = single({}, { token: 'inline' }, { namespace: 'ns' });
    const asJson = load(JSON.stringify(content, null, 2));
    const asYaml = load(stringify(content));
    // A flow mapping with unquoted keys starts with "{" but is not JSON.
    const asFlow = load(
      '{apiVersion: v1, kind: Config, clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}], users: [{name: u, user: {token: inline}}], contexts: [{name: c, context: {cluster: k, user: u, namespace: ns}}], current-context: c}',
    );
    for (const resolved of [asJson, asYaml, asFlow]) {
      expect({ server: resolved.server.href, namespace: resolved.namespace, token: await token(resolved) }).toEqual({
        server: 'https://127.0.0.1:6443/',
        namespace: 'ns',
        token: 'inline',
      });
    }
  });

  it('a server below a path keeps the path', () => {
    expect(load(single({ server: 'https://proxy.example/k8s/clusters/c-1' })).server.pathname).toBe('/k8s/clusters/c-1');
  });

  it('entries nobody selects are not validated', () => {
    const content = {
      ...(single({}) as object),
      clusters: [
        { name: 'k', cluster: { server: 'https://127.0.0.1:6443' } },
        { name: 'broken', cluster: 7 },
      ],
    };
    expect(load(content).clusterName).toBe('k');
  });
});

describe('kubeconfig errors name the kubeconfig and the entry', () => {
  const noCurrent = { ...(single({}) as object), 'current-context': '' };
  it.each([
    ['no current-context', noCurrent, /current-context is not set/],
    ['a missing context', { ...(single({}) as object), 'current-context': 'gone' }, /context "gone" not found/],
    ['a missing cluster', single({}, {}, { cluster: 'gone' }), /cluster "gone" of context "c" not found/],
    ['a missing user', single({}, {}, { user: 'gone' }), /user "gone" of context "c" not found/],
    ['a cluster without server', { ...(single({}) as object), clusters: [{ name: 'k', cluster: {} }] }, /cluster "k" is malformed: server/],
    ['a server that is not a URL', single({ server: 'not a url' }), /cluster "k" has no valid server URL/],
    ['a plain-http server', single({ server: 'http://127.0.0.1:8080' }), /cluster "k": server http:\/\/127.0.0.1:8080 is not https/],
    ['an unreadable CA file', single({ 'certificate-authority': 'pki/missing.crt' }), /cluster "k": certificate-authority .*pki\/missing.crt cannot be read/],
    ['CA data that is not base64', single({ 'certificate-authority-data': '%%%' }), /cluster "k" is malformed: certificate-authority-data/],
    ['a CA with insecure-skip-tls-verify', single({ 'certificate-authority': 'pki/ca.crt', 'insecure-skip-tls-verify': true }), /exclude each other/],
    ['a certificate without its key', single({}, { 'client-certificate': 'pki/client.crt' }), /user "u": a client certificate needs its key/],
    ['an unreadable client key', single({}, { 'client-certificate': 'pki/client.crt', 'client-key': 'nope.key' }), /user "u": client-key .*nope.key/],
    ['an unreadable token file', single({}, { tokenFile: 'pki/none' }), /user "u": token file .*pki\/none cannot be read/],
    ['a SOCKS proxy-url', single({ 'proxy-url': 'socks5://proxy:1080' }), /cluster "k": proxy-url socks5:\/\/proxy:1080 is not an http or https proxy/],
    [
      'an oidc auth-provider without its issuer',
      single({}, { 'auth-provider': { name: 'oidc', config: { 'client-id': 'k' } } }),
      /user "u": the oidc auth provider needs client-id and idp-issuer-url/,
    ],
    [
      'the removed gcp auth-provider',
      single({}, { 'auth-provider': { name: 'gcp' } }),
      /user "u": the gcp auth provider has been removed .*gke-gcloud-auth-plugin/,
    ],
    ['an unknown auth-provider', single({}, { 'auth-provider': { name: 'keystone' } }), /user "u": no auth provider named "keystone"/],
    ['as-groups without as', single({}, { 'as-groups': ['ops'] }), /user "u": as-uid, as-groups or as-user-extra are set without as/],
    ['exec of v1alpha1', single({}, { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' } }), /user "u" is malformed: exec.apiVersion/],
    [
      'exec that must be interactive',
      single({}, { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' } }),
      /interactive/,
    ],
    ['a list that is not a list', { clusters: { k: {} } }, /is not a kubeconfig: clusters/],
    ['text that is not YAML', 'clusters: [unclosed', /cannot be read/],
  ])('%s', (_case, content, pattern) => {
    const path = kubeconfig(content);
    const { code, message } = failure(() => loadKubeconfig([path]));
    expect(code).toBe('InvalidKubeconfig');
    expect(message).toMatch(pattern);
    expect(message).toContain(`kubeconfig ${path}`);
  });

  it('a missing file names the file', () => {
    expect(failure(() => loadKubeconfig([join(dir, 'absent')])).message).toContain(`kubeconfig ${join(dir, 'absent')} cannot be read`);
  });
});

describe('several kubeconfig files (KUBECONFIG)', () => {
  it('merge as kubectl does: the first file to define a name or current-context wins; paths resolve per file', () => {
    const sub = mkdtempSync(join(dir, 'second-'));
    mkdirSync(join(sub, 'pki'));
    writeFileSync(join(sub, 'pki', 'ca.crt'), 'second ca');
    const first = kubeconfig({
      clusters: [{ name: 'shared', cluster: { server: 'https://first:6443', 'certificate-authority': 'pki/ca.crt' } }],
      users: [{ name: 'u', user: { token: 'first' } }],
      contexts: [{ name: 'a', context: { cluster: 'shared', user: 'u' } }],
    });
    const second = kubeconfig(
      {
        clusters: [
          { name: 'shared', cluster: { server: 'https://second:6443' } },
          { name: 'own', cluster: { server: 'https://own:6443', 'certificate-authority': 'pki/ca.crt' } },
        ],
        users: [{ name: 'u', user: { token: 'second' } }],
        contexts: [
          { name: 'a', context: { cluster: 'own', user: 'u' } },
          { name: 'b', context: { cluster: 'own', user: 'u' } },
        ],
        'current-context': 'b',
      },
      sub,
    );
    const merged = loadKubeconfig([first, second]);
    expect(merged).toMatchObject({ context: 'b', clusterName: 'own', origin: `kubeconfig ${first}:${second}` });
    expect(merged.tls.ca?.toString()).toBe('second ca');
    const a = loadKubeconfig([first, second], { context: 'a' });
    expect([a.server.host, a.tls.ca?.toString()]).toEqual(['first:6443', 'file ca.crt']);
  });

  it.each([
    ['the existing files of KUBECONFIG, in order', (a: string, b: string) => ({ KUBECONFIG: `${a}:${join(dir, 'absent')}:${b}` }), 'ab'],
    ['~/.kube/config when KUBECONFIG is empty', () => ({ KUBECONFIG: '', HOME: join(dir, 'home') }), 'home'],
    ['nothing: in-cluster', () => ({ HOME: join(dir, 'nowhere') }), 'none'],
  ])('default files: %s', (_case, env, expected) => {
    mkdirSync(join(dir, 'home', '.kube'), { recursive: true });
    writeFileSync(join(dir, 'home', '.kube', 'config'), '');
    const a = kubeconfig({});
    const b = kubeconfig({});
    const want = { ab: [a, b], home: [join(dir, 'home', '.kube', 'config')], none: [] }[expected];
    expect(defaultKubeconfigFiles(env(a, b))).toEqual(want);
  });

  it('a KUBECONFIG of missing files only is an error naming them', () => {
    expect(failure(() => defaultKubeconfigFiles({ KUBECONFIG: join(dir, 'absent') })).message).toContain(join(dir, 'absent'));
  });
});

describe('token files', () => {
  it('are re-read once a minute and at once after a 401', async () => {
    const file = join(dir, 'rotating-token');
    writeFileSync(file, 'one');
    let now = 1_000;
    const config = load(single({}, { tokenFile: file }), { now: () => now });
    writeFileSync(file, 'two');
    now += 59_999;
    expect(await token(config)).toBe('one');
    now += 1;
    expect(await token(config)).toBe('two');
    writeFileSync(file, 'three');
    expect(config.credentials?.refresh()).toBe(true);
    expect(await token(config)).toBe('three');
    expect(config.credentials?.refresh()).toBe(false);
    rmSync(file);
    now += 60_000;
    expect(await token(config)).toBe('three');
  });
});

describe('exec plugins from a kubeconfig', () => {
  it('run a command relative to the kubeconfig, with its args, env and the cluster when asked', async () => {
    const plugin = join(dir, 'pki', 'plugin.sh');
    writeFileSync(
      plugin,
      '#!/bin/sh\nprintf %s "$KUBERNETES_EXEC_INFO" > "$INFO"\nprintf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\' "$1"\n',
    );
    chmodSync(plugin, 0o755);
    const info = join(dir, 'exec-info.json');
    const exec = {
      command: './pki/plugin.sh',
      args: ['from-args'],
      env: [{ name: 'INFO', value: info }],
      apiVersion: 'client.authentication.k8s.io/v1',
      provideClusterInfo: true,
    };
    const cluster = {
      'certificate-authority-data': b64('inline ca'),
      'tls-server-name': 'api',
      extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'x' } }],
    };
    expect(await token(load(single(cluster, { exec })))).toBe('from-args');
    expect(JSON.parse(readFileSync(info, 'utf8'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: { server: 'https://127.0.0.1:6443', 'tls-server-name': 'api', 'certificate-authority-data': b64('inline ca'), config: { audience: 'x' } },
      },
    });
  });
});
