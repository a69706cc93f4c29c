import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { inClusterConfig } from './in-cluster.ts';

let dir: string;
const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-sa-'));
  writeFileSync(join(dir, 'token'), 'first\n');
  writeFileSync(join(dir, 'ca.crt'), 'cluster ca');
  writeFileSync(join(dir, 'namespace'), 'dra-driver-sriov');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('in-cluster configuration', () => {
  it('reaches the service address with the mounted CA, namespace and token', async () => {
    const config = inClusterConfig({ env, serviceAccountDir: dir });
    expect(config.server.href).toBe('https://10.96.0.1/');
    expect([config.tls.ca?.toString(), config.tls.rejectUnauthorized, config.namespace]).toEqual(['cluster ca', true, 'dra-driver-sriov']);
    expect(await config.credentials?.current()).toEqual({ token: 'first' });
  });

  it('brackets an IPv6 service address', () => {
    expect(inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir: dir }).server.host).toBe(
      '[fd00::1]:6443',
    );
  });

  it('re-reads the token as the kubelet rotates it: after a minute, or at once after a 401', async () => {
    const sa = mkdtempSync(join(dir, 'rotating-'));
    writeFileSync(join(sa, 'token'), 'old');
    writeFileSync(join(sa, 'ca.crt'), 'ca');
    let now = 0;
    const config = inClusterConfig({ env, serviceAccountDir: sa, now: () => now });
    writeFileSync(join(sa, 'token'), 'new');
    now = 30_000;
    expect(await config.credentials?.current()).toEqual({ token: 'old' });
    now = 60_000;
    expect(await config.credentials?.current()).toEqual({ token: 'new' });
    writeFileSync(join(sa, 'token'), 'newer');
    expect(config.credentials?.refresh()).toBe(true);
    expect(await config.credentials?.current()).toEqual({ token: 'newer' });
  });

  it('has no namespace when the file is absent', () => {
    const sa = mkdtempSync(join(dir, 'no-namespace-'));
    writeFileSync(join(sa, 'token'), 't');
    writeFileSync(join(sa, 'ca.crt'), 'ca');
    expect(inClusterConfig({ env, serviceAccountDir: sa }).namespace).toBeUndefined();
  });

  it.each([
    ['outside a Pod', {}, '', /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/],
    ['without the mounted CA', env, 'absent', /absent\/ca.crt cannot be read/],
  ])('%s is InvalidKubeconfig', (_case, environment, subdirectory, pattern) => {
    let error: unknown;
    try {
      inClusterConfig({ env: environment, serviceAccountDir: join(dir, subdirectory) });
    } catch (caught) {
      error = caught;
    }
    expect(isSriovDraError(error, 'InvalidKubeconfig')).toBe(true);
    expect((error as Error).message).toMatch(pattern);
  });

  it('without a token file is InvalidKubeconfig naming the file', () => {
    const sa = mkdtempSync(join(dir, 'no-token-'));
    writeFileSync(join(sa, 'ca.crt'), 'ca');
    expect(() => inClusterConfig({ env, serviceAccountDir: sa })).toThrow(`token file ${join(sa, 'token')} cannot be read`);
  });
});
