import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { ExecCredentials, execConfigSchema } from './exec-credential.ts';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const EXPIRY = '2030-01-01T00:00:00Z';

let dir: string;
let plugin: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-exec-'));
  // Counts its runs, prints whatever the test put in the answer file, and fails on request.
  plugin = join(dir, 'plugin.sh');
  writeFileSync(plugin, '#!/bin/sh\necho run >> "$RUNS"\ncat "$ANSWER"\nif [ -n "$FAIL" ]; then echo "$FAIL" >&2; exit 3; fi\n');
  chmodSync(plugin, 0o755);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let cases = 0;
/** A plugin whose answer is `answer`; `runs()` counts its executions. */
function setup(answer: unknown, extra: { apiVersion?: string; fail?: string; command?: string; installHint?: string } = {}) {
  cases += 1;
  const runsFile = join(dir, `runs-${cases}`);
  const answerFile = join(dir, `answer-${cases}`);
  writeFileSync(answerFile, typeof answer === 'string' ? answer : JSON.stringify(answer));
  writeFileSync(runsFile, '');
  let now = Date.parse(EXPIRY) - 60_000;
  const exec = execConfigSchema.parse({
    command: extra.command ?? plugin,
    apiVersion: extra.apiVersion ?? V1,
    env: [
      { name: 'RUNS', value: runsFile },
      { name: 'ANSWER', value: answerFile },
      { name: 'FAIL', value: extra.fail ?? '' },
    ],
    installHint: extra.installHint,
  });
  const credentials = new ExecCredentials(exec, { server: 'https://127.0.0.1:6443' }, 'kubeconfig /k: user "u"', () => now);
  return {
    credentials,
    runs: () => readFileSync(runsFile, 'utf8').split('\n').length - 1,
    setNow: (value: number) => {
      now = value;
    },
  };
}

const credential = (status: Record<string, unknown>, apiVersion = V1) => ({ apiVersion, kind: 'ExecCredential', status });

describe('exec credential plugins', () => {
  it.each([V1, V1BETA1])('%s: the token is cached until expirationTimestamp, then the plugin runs again', async (apiVersion) => {
    const { credentials, runs, setNow } = setup(credential({ token: 't', expirationTimestamp: EXPIRY }, apiVersion), { apiVersion });
    expect(await credentials.current()).toEqual({ token: 't' });
    setNow(Date.parse(EXPIRY) - 1);
    expect(await credentials.current()).toEqual({ token: 't' });
    expect(runs()).toBe(1);
    setNow(Date.parse(EXPIRY));
    await credentials.current();
    expect(runs()).toBe(2);
  });

  it('a credential without expiry is kept until a 401, after which the plugin runs again', async () => {
    const { credentials, runs, setNow } = setup(credential({ token: 't' }));
    await credentials.current();
    setNow(Date.parse('2100-01-01T00:00:00Z'));
    await credentials.current();
    expect(runs()).toBe(1);
    expect(credentials.refresh()).toBe(true);
    await credentials.current();
    expect(runs()).toBe(2);
  });

  it('concurrent requests share one run', async () => {
    const { credentials, runs } = setup(credential({ token: 't' }));
    await Promise.all([credentials.current(), credentials.current(), credentials.current()]);
    expect(runs()).toBe(1);
  });

  it('a client certificate from the plugin is presented with the request', async () => {
    const { credentials } = setup(credential({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }));
    const material = await credentials.current();
    expect([material.token, material.cert?.toString(), material.key?.toString()]).toEqual([undefined, 'CERT', 'KEY']);
  });

  it.each([
    ['an answer in another version', credential({ token: 't' }, V1BETA1), {}, /answered in client.authentication.k8s.io\/v1beta1, not the requested/],
    ['output that is not JSON', 'token=t', {}, /printed no valid ExecCredential/],
    ['neither token nor certificate', credential({ expirationTimestamp: EXPIRY }), {}, /neither a token nor a client certificate/],
    ['a certificate without key', credential({ clientCertificateData: 'CERT' }), {}, /come together/],
    ['an expiry that is not a timestamp', credential({ token: 't', expirationTimestamp: 'tomorrow' }), {}, /printed no valid ExecCredential/],
    ['a failing plugin (stderr kept)', credential({ token: 't' }), { fail: 'login required' }, /failed \(exit 3\): login required/],
    [
      'a missing command (install hint as remedy)',
      '',
      { command: '/nonexistent/sriov-dra-plugin', installHint: 'install it' },
      /sriov-dra-plugin not found — install it/,
    ],
  ])('%s is InvalidKubeconfig naming the user', async (_case, answer, extra, pattern) => {
    const { credentials } = setup(answer, extra);
    const error = await credentials.current().catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'InvalidKubeconfig')).toBe(true);
    expect((error as Error).message).toMatch(pattern);
    expect((error as Error).message).toContain('kubeconfig /k: user "u": exec plugin');
  });

  it('a failed run is not cached: the next request runs the plugin again', async () => {
    const { credentials, runs } = setup('garbage');
    await expect(credentials.current()).rejects.toThrow(/ExecCredential/);
    await expect(credentials.current()).rejects.toThrow(/ExecCredential/);
    expect(runs()).toBe(2);
  });
});
