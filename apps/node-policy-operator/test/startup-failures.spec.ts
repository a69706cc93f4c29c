// `node-policy-operator run` and `webhook` started as the Deployments start them, each with one thing
// broken: the failure is one line on stderr naming the flag or file, with its code and what to do, and the
// process exits non-zero; the stack reaches the log only at --log-level debug (or trace).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ControlPlane, LocalPki, createNamespace, installCrds, runSourceEntry, startControlPlane, takenPort } from '@sriov-dra/k8s/testing';

// Each case starts the component from its TypeScript sources, one to three times: seconds apiece on a
// loaded machine. The bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const OPERATOR_NS = 'sriov-network-operator';
const FLAG_REMEDY = 'fix the flag or option named in the message';

const operator = (args: readonly string[], env: Readonly<Record<string, string>> = {}) => runSourceEntry(MAIN, args, env);

/** A kubeconfig naming an API server nobody serves: a port just taken and released. */
async function unreachableKubeconfig(dir: string): Promise<{ file: string; port: number }> {
  const { port, server } = await takenPort();
  await new Promise((resolve) => server.close(resolve));
  const file = join(dir, 'unreachable.kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${String(port)}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'unused' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return { file, port };
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-operator-start-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('node-policy-operator run that cannot start', () => {
  const run = (...args: string[]): string[] => ['run', '--operator-namespace', OPERATOR_NS, ...args];

  it('names a bad flag and exits 2', async () => {
    expect(await operator(run('--health-port', 'x'))).toEqual({
      code: 2,
      stdout: '',
      stderr: `InvalidComponentSetting: Flag --health-port: "x" is not an integer from 0 to 65535 — ${FLAG_REMEDY}\n`,
    });
  });

  it('names --log-level for a level pino does not have, from the flag or from LOG_LEVEL', async () => {
    const line = (level: string): string =>
      `InvalidComponentSetting: Flag --log-level: "${level}" is not one of trace, debug, info, warn, error, fatal — ${FLAG_REMEDY}\n`;
    expect(await operator(run('--log-level', 'verbose'))).toEqual({ code: 2, stdout: '', stderr: line('verbose') });
    expect(await operator(run(), { LOG_LEVEL: 'loud' })).toEqual({ code: 2, stdout: '', stderr: line('loud') });
  });

  it('names --kubeconfig and the file when it is missing, with no stack unless the level is debug', async () => {
    const missing = join(dir, 'missing.kubeconfig');
    const line = `InvalidKubeconfig: Flag --kubeconfig: kubeconfig ${missing} cannot be read: ENOENT: no such file or directory, open '${missing}' — point --kubeconfig (or KUBECONFIG) at a readable kubeconfig file, or leave both unset inside a Pod to use its service account\n`;
    expect(await operator(run('--kubeconfig', missing))).toEqual({ code: 1, stdout: '', stderr: line });

    const debug = await operator(run('--kubeconfig', missing, '--log-level', 'debug'));
    expect({ code: debug.code, stderr: debug.stderr }).toEqual({ code: 1, stderr: line });
    const logged = debug.stdout.split('\n').filter(Boolean);
    expect(logged).toHaveLength(1);
    const entry = JSON.parse(logged[0] ?? '') as { level: number; err: { code: string; stack: string } };
    expect({ level: entry.level, code: entry.err.code, stackAt: entry.err.stack.split('\n')[1]?.trim().startsWith('at ') }).toEqual({
      level: 60,
      code: 'InvalidKubeconfig',
      stackAt: true,
    });
  });

  it('names the API server it cannot reach', async () => {
    const { file, port } = await unreachableKubeconfig(dir);
    const crd = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
    expect(await operator(run('--kubeconfig', file))).toEqual({
      code: 1,
      stdout: '',
      stderr: `ApiUnavailable: CustomResourceDefinition ${crd}: GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}: connect ECONNREFUSED 127.0.0.1:${String(port)} — retried with backoff; check the API server endpoint, its certificates and network policy\n`,
    });
  }, 60_000);

  describe('against a real API server', () => {
    let cp: ControlPlane;

    beforeAll(async () => {
      cp = await startControlPlane();
      await installCrds(cp.adminClient);
      await createNamespace(cp.adminClient, OPERATOR_NS);
    }, 120_000);

    afterAll(async () => {
      await cp.stop();
    });

    it('names --health-port when its port is taken', async () => {
      const { port, server } = await takenPort();
      try {
        const kubeconfig = cp.kubeconfigFor('operator', { groups: ['system:masters'] });
        expect(await operator(run('--kubeconfig', kubeconfig, '--health-port', String(port)))).toEqual({
          code: 1,
          stdout: '',
          stderr: `InvalidComponentSetting: Flag --health-port: port 0.0.0.0:${String(port)} is already in use — stop what listens there or set --health-port to a free port\n`,
        });
      } finally {
        server.close();
      }
    }, 60_000);
  });
});

describe('node-policy-operator webhook that cannot start', () => {
  const webhook = (...args: string[]): string[] => ['webhook', '--operator-namespace', OPERATOR_NS, '--port', '0', ...args];

  it('names --log-level for a level pino does not have, from the flag or from LOG_LEVEL', async () => {
    const line = (level: string): string =>
      `InvalidComponentSetting: Flag --log-level: "${level}" is not one of trace, debug, info, warn, error, fatal — ${FLAG_REMEDY}\n`;
    expect(await operator(webhook('--log-level', 'verbose'))).toEqual({ code: 2, stdout: '', stderr: line('verbose') });
    expect(await operator(webhook(), { LOG_LEVEL: 'loud' })).toEqual({ code: 2, stdout: '', stderr: line('loud') });
  });

  it('names the flag and the file of a missing certificate or key', async () => {
    const pki = new LocalPki(dir);
    const issued = pki.serving('webhook');
    const missing = join(dir, 'missing.crt');
    expect(await operator(webhook('--tls-cert-file', missing, '--tls-private-key-file', issued.key))).toEqual({
      code: 1,
      stdout: '',
      stderr: `UnreadableServingCertificate: Flag --tls-cert-file: cannot read the webhook's TLS certificate ${missing}: ENOENT: no such file or directory, open '${missing}' — mount the serving certificate Secret there or point --tls-cert-file at the file\n`,
    });
    const missingKey = join(dir, 'missing.key');
    expect(await operator(webhook('--tls-cert-file', issued.cert, '--tls-private-key-file', missingKey))).toEqual({
      code: 1,
      stdout: '',
      stderr: `UnreadableServingCertificate: Flag --tls-private-key-file: cannot read the webhook's TLS private key ${missingKey}: ENOENT: no such file or directory, open '${missingKey}' — mount the serving certificate Secret there or point --tls-private-key-file at the file\n`,
    });
  });

  it('names both files when they are not a PEM certificate and key', async () => {
    const notPem = join(dir, 'not-pem.crt');
    writeFileSync(notPem, 'not a certificate\n');
    expect(await operator(webhook('--tls-cert-file', notPem, '--tls-private-key-file', notPem))).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        new RegExp(
          `^InvalidServingCertificate: Flag --tls-cert-file ${notPem}, --tls-private-key-file ${notPem}: cannot serve TLS with them: [^\\n]+ — give a PEM certificate \\(chain allowed\\) and its PEM private key\\n$`,
        ),
      ),
    });
  });

  it('names --port when its port is taken', async () => {
    const pki = new LocalPki(dir);
    const issued = pki.serving('webhook-port');
    const { port, server } = await takenPort();
    try {
      expect(await operator([...webhook('--tls-cert-file', issued.cert, '--tls-private-key-file', issued.key), '--port', String(port)])).toEqual({
        code: 1,
        stdout: '',
        stderr: `InvalidComponentSetting: Flag --port: port 0.0.0.0:${String(port)} is already in use — stop what listens there or set --port to a free port\n`,
      });
    } finally {
      server.close();
    }
  });
});
