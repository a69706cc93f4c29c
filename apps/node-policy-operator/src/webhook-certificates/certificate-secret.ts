import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { type KubeClient, type KubeObject, type ResourceType, isApiError, resourcePath, retriesExhausted } from '@sriov-dra/k8s';
import { SECRET_KEYS, assessCertificateSecret, pemCertificates } from './assess-certificate-secret.ts';
import { issueWebhookCertificates } from './issue-certificates.ts';

const SECRETS: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
/** Each round re-reads the Secret; another replica's create or renewal costs one round. */
const ROUNDS = 5;

interface Secret extends KubeObject {
  data?: Record<string, string>;
}

export interface CertificateSecretRequest {
  readonly namespace: string;
  readonly name: string;
  readonly dnsNames: readonly string[];
  readonly validityDays: number;
  readonly now: () => Date;
  readonly logger: Logger;
}

/** The PEM material the Secret holds: `caBundle` is every CA to trust (the signing CA first). */
export interface ServingMaterial {
  readonly caBundle: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export type SecretOutcome = 'created' | 'kept' | 'renewed';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const text = (data: Readonly<Record<string, string>>, key: string): string => Buffer.from(data[key] ?? '', 'base64').toString('utf8');

/**
 * New material; on a renewal the previous signing CA stays in the bundle while it is valid, so that Pods
 * still serving the previous certificate keep being trusted until they restart.
 */
function issue(request: CertificateSecretRequest, previous: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const now = request.now();
  const issued = issueWebhookCertificates({ dnsNames: request.dnsNames, validityDays: request.validityDays, now });
  const [previousCa] = previous === undefined ? [] : pemCertificates(text(previous, SECRET_KEYS.ca));
  let carried = '';
  try {
    if (previousCa !== undefined && new X509Certificate(previousCa).validToDate > now) carried = previousCa;
  } catch {
    // An unreadable previous CA trusts nothing.
  }
  return { [SECRET_KEYS.ca]: base64(issued.caPem + carried), [SECRET_KEYS.cert]: base64(issued.certPem), [SECRET_KEYS.key]: base64(issued.keyPem) };
}

/**
 * The serving certificate Secret, created once and reused: a create that meets another replica's
 * (AlreadyExists) reads and uses that one; an existing Secret is kept unless assessCertificateSecret finds
 * it due, and then replaced by an update guarded by its resourceVersion, so that of two replicas renewing
 * at once one wins and the other reads the winner's.
 */
export async function ensureCertificateSecret(
  client: KubeClient,
  request: CertificateSecretRequest,
): Promise<{ material: ServingMaterial; outcome: SecretOutcome }> {
  const at = { namespace: request.namespace, name: request.name };
  const material = (data: Readonly<Record<string, string>>): ServingMaterial => ({
    caBundle: text(data, SECRET_KEYS.ca),
    certPem: text(data, SECRET_KEYS.cert),
    keyPem: text(data, SECRET_KEYS.key),
  });
  let lastRace: unknown;
  for (let round = 1; round <= ROUNDS; round += 1) {
    let existing: Secret | undefined;
    try {
      existing = await client.get<Secret>(SECRETS, at);
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
    }
    if (existing === undefined) {
      const data = issue(request, undefined);
      try {
        await client.create(
          SECRETS,
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { ...at, labels: { 'app.kubernetes.io/name': 'node-policy-operator-webhook' } },
            type: 'kubernetes.io/tls',
            data,
          },
          { namespace: at.namespace },
        );
        return { material: material(data), outcome: 'created' };
      } catch (error) {
        if (!isApiError(error, 'AlreadyExists')) throw error;
        request.logger.info({ secret: at }, 'another replica created the certificate Secret first; using it');
        lastRace = error;
        continue;
      }
    }
    const verdict = assessCertificateSecret(existing.data, request.dnsNames, request.now());
    if (verdict.keep) return { material: material(existing.data ?? {}), outcome: 'kept' };
    request.logger.warn({ secret: at, reason: verdict.reason }, 'renewing the webhook serving certificate');
    const data = issue(request, existing.data);
    try {
      await client.request({ method: 'PUT', path: resourcePath(SECRETS, at), body: { ...existing, data }, object: { kind: 'Secret', ...at } });
      return { material: material(data), outcome: 'renewed' };
    } catch (error) {
      if (!isApiError(error, 'Conflict')) throw error;
      request.logger.info({ secret: at }, 'the certificate Secret changed while renewing it; reading it again');
      lastRace = error;
    }
  }
  throw retriesExhausted(ROUNDS, lastRace);
}
