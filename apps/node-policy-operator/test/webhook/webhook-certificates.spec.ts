// The serving certificate Secret on a real API server, with the races of Pods starting or renewing at once
// made certain: a gate holds each replica's write until both have read, so both act on the same state and
// the API server's AlreadyExists or Conflict decides. The renewal rule is driven by the clock the step reads.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { pino } from 'pino';
import { type ApiRequest, type KubeClient, type KubeObject, type ResourceType } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { pemCertificates } from '../../src/webhook-certificates/assess-certificate-secret.ts';
import { type CertificateSecretRequest, ensureCertificateSecret } from '../../src/webhook-certificates/certificate-secret.ts';
import { serviceDnsNames } from '../../src/webhook-certificates/webhook-certificates-command.ts';

const NAMESPACE = 'webhook-certificates';
const SECRETS: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const DAY_MS = 24 * 60 * 60 * 1000;

interface Secret extends KubeObject {
  readonly data: Record<string, string>;
}

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
  await createNamespace(cp.adminClient, NAMESPACE);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

/** Resolves once `count` callers have arrived. */
function gate(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived === count) open();
    await opened;
  };
}

/** The admin client, each create and PUT waiting at `wait` first. */
function gatedClient(wait: () => Promise<void>): KubeClient {
  const client = cp.adminClient;
  return new Proxy(client, {
    get(target, property, receiver): unknown {
      if (property === 'create') {
        return async (...args: Parameters<KubeClient['create']>) => {
          await wait();
          return target.create(...args);
        };
      }
      if (property === 'request') {
        return async (request: ApiRequest) => {
          if (request.method === 'PUT') await wait();
          return target.request(request);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function request(name: string, now: Date, lines: string[] = []): CertificateSecretRequest {
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  return { namespace: NAMESPACE, name, dnsNames: serviceDnsNames('hook', NAMESPACE), validityDays: 30, now: () => now, logger };
}

const read = (name: string): Promise<Secret> => cp.adminClient.get<Secret>(SECRETS, { namespace: NAMESPACE, name });
const decoded = (secret: Secret, key: string): string => Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8');

describe('the serving certificate Secret', () => {
  it('two replicas creating it at once: one creates, the other meets AlreadyExists and uses that one', async () => {
    const wait = gate(2);
    const lines: string[] = [];
    const now = new Date();
    const results = await Promise.all([
      ensureCertificateSecret(gatedClient(wait), request('race-create', now, lines)),
      ensureCertificateSecret(gatedClient(wait), request('race-create', now, lines)),
    ]);
    expect(results.map((result) => result.outcome).sort()).toEqual(['created', 'kept']);
    expect(lines.filter((line) => line.includes('another replica created the certificate Secret first'))).toHaveLength(1);
    const stored = await read('race-create');
    for (const result of results) {
      expect(result.material).toEqual({ caBundle: decoded(stored, 'ca.crt'), certPem: decoded(stored, 'tls.crt'), keyPem: decoded(stored, 'tls.key') });
    }
  });

  it('is kept while more than a third of its lifetime is left, and renewed after, the previous CA still trusted', async () => {
    const issuedAt = new Date();
    await ensureCertificateSecret(cp.adminClient, request('lifetime', issuedAt));
    const first = await read('lifetime');
    // 30 days of validity: renewal is due once 10 are left.
    const kept = await ensureCertificateSecret(cp.adminClient, request('lifetime', new Date(issuedAt.getTime() + 19 * DAY_MS)));
    expect(kept.outcome).toBe('kept');
    expect((await read('lifetime')).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    const renewed = await ensureCertificateSecret(cp.adminClient, request('lifetime', new Date(issuedAt.getTime() + 21 * DAY_MS)));
    expect(renewed.outcome).toBe('renewed');
    const second = await read('lifetime');
    expect(decoded(second, 'tls.crt')).not.toBe(decoded(first, 'tls.crt'));
    // The new signing CA first, then the previous one: Pods still serving the previous certificate stay trusted.
    const [signing, previous, ...rest] = pemCertificates(decoded(second, 'ca.crt'));
    expect({ previous, rest }).toEqual({ previous: decoded(first, 'ca.crt'), rest: [] });
    expect(new X509Certificate(decoded(second, 'tls.crt')).checkIssued(new X509Certificate(signing ?? ''))).toBe(true);
  });

  it('is renewed when it names other DNS names than the Service’s', async () => {
    const now = new Date();
    await ensureCertificateSecret(cp.adminClient, { ...request('renamed', now), dnsNames: serviceDnsNames('old-name', NAMESPACE) });
    const renewed = await ensureCertificateSecret(cp.adminClient, request('renamed', now));
    expect(renewed.outcome).toBe('renewed');
    expect(new X509Certificate(renewed.material.certPem).subjectAltName).toBe(`DNS:hook, DNS:hook.${NAMESPACE}, DNS:hook.${NAMESPACE}.svc`);
  });

  it('two replicas renewing at once: the update guarded by resourceVersion lets one win, the other reads the winner’s', async () => {
    const issuedAt = new Date();
    await ensureCertificateSecret(cp.adminClient, request('race-renew', issuedAt));
    const due = new Date(issuedAt.getTime() + 25 * DAY_MS);
    const wait = gate(2);
    const lines: string[] = [];
    const results = await Promise.all([
      ensureCertificateSecret(gatedClient(wait), request('race-renew', due, lines)),
      ensureCertificateSecret(gatedClient(wait), request('race-renew', due, lines)),
    ]);
    expect(results.map((result) => result.outcome).sort()).toEqual(['kept', 'renewed']);
    expect(lines.filter((line) => line.includes('changed while renewing it'))).toHaveLength(1);
    const stored = await read('race-renew');
    for (const result of results) expect(result.material.certPem).toBe(decoded(stored, 'tls.crt'));
  });
});
