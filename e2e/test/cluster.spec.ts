// How the stack is pointed at a cluster, and the kubeconfigs it writes for its processes there: read
// back by the same loader the components use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadKubeconfig } from '@sriov-dra/k8s';
import { openCluster, targetFromEnv } from '../src/stack/cluster.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-cluster-spec-'));
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function adminKubeconfig(name: string, cluster: Record<string, unknown>): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'admin', user: { token: 'admin-token' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'admin' } }],
      'current-context': 'c',
    }),
  );
  return file;
}

describe('targetFromEnv', () => {
  it('is the local control plane unless told otherwise', () => {
    expect(targetFromEnv({ KUBECONFIG: '/somewhere/else' })).toEqual({ kind: 'local' });
  });

  it('takes the files of KUBECONFIG for the kubeconfig target', () => {
    const file = adminKubeconfig('target.kubeconfig', { server: 'https://127.0.0.1:6443' });
    expect(targetFromEnv({ SRIOV_DRA_E2E_TARGET: 'kubeconfig', KUBECONFIG: file })).toEqual({ kind: 'kubeconfig', files: [file] });
  });

  it('refuses an unknown target and a kubeconfig target without a kubeconfig, saying what to set', () => {
    expect(() => targetFromEnv({ SRIOV_DRA_E2E_TARGET: 'kind' })).toThrow('SRIOV_DRA_E2E_TARGET=kind: expected local or kubeconfig');
    expect(() => targetFromEnv({ SRIOV_DRA_E2E_TARGET: 'kubeconfig', HOME: dir })).toThrow(
      'SRIOV_DRA_E2E_TARGET=kubeconfig: set KUBECONFIG to the kubeconfig of the cluster to test against',
    );
  });
});

describe('a target cluster’s token kubeconfigs', () => {
  it('trust the admin kubeconfig’s CA and, through a local proxy, check the API server’s own name', async () => {
    const cluster = await openCluster(
      {
        kind: 'kubeconfig',
        files: [
          adminKubeconfig('named.kubeconfig', { server: 'https://api.lab.example:6443', 'certificate-authority-data': Buffer.from(CA).toString('base64') }),
        ],
      },
      dir,
    );
    const direct = loadKubeconfig([cluster.tokenKubeconfig(path.join(dir, 'direct.kubeconfig'), 'sa', 't1', { namespace: 'pools' })]);
    const proxied = loadKubeconfig([cluster.tokenKubeconfig(path.join(dir, 'proxied.kubeconfig'), 'sa', 't2', { server: 'https://127.0.0.1:40000' })]);
    await cluster.stop();
    expect({
      server: direct.server.toString(),
      ca: direct.tls.ca?.toString(),
      servername: direct.tls.servername,
      namespace: direct.namespace,
      token: (await direct.credentials?.current())?.token,
    }).toEqual({ server: 'https://api.lab.example:6443/', ca: CA, servername: undefined, namespace: 'pools', token: 't1' });
    expect({ server: proxied.server.toString(), servername: proxied.tls.servername, namespace: proxied.namespace }).toEqual({
      server: 'https://127.0.0.1:40000/',
      servername: 'api.lab.example',
      namespace: undefined,
    });
  });

  it('name no server for TLS when the API server is addressed by IP, and keep insecure-skip-tls-verify', async () => {
    const cluster = await openCluster(
      { kind: 'kubeconfig', files: [adminKubeconfig('ip.kubeconfig', { server: 'https://10.0.0.1:6443', 'insecure-skip-tls-verify': true })] },
      dir,
    );
    const proxied = loadKubeconfig([cluster.tokenKubeconfig(path.join(dir, 'ip-proxied.kubeconfig'), 'sa', 't', { server: 'https://127.0.0.1:40001' })]);
    await cluster.stop();
    expect({ servername: proxied.tls.servername, rejectUnauthorized: proxied.tls.rejectUnauthorized, ca: proxied.tls.ca }).toEqual({
      servername: undefined,
      rejectUnauthorized: false,
      ca: undefined,
    });
  });
});
