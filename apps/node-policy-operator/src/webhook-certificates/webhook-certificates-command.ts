import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KubeClient } from '@sriov-dra/k8s';
import { SECRET_KEYS } from './assess-certificate-secret.ts';
import { applyCaBundle } from './ca-bundle.ts';
import { type SecretOutcome, ensureCertificateSecret } from './certificate-secret.ts';
import type { WebhookCertificatesFlags } from './webhook-certificates-flags.ts';

/** The names the API server may dial the Service by; it uses the last, <service>.<namespace>.svc. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`];
}

/**
 * The init container's work: the Secret ensured, its certificate written where the server container
 * reads it, the caBundle applied. Run before every start of the server; each step is idempotent.
 */
export async function setUpWebhookCertificates(
  client: KubeClient,
  flags: WebhookCertificatesFlags,
  logger: Logger,
  now: () => Date = () => new Date(),
): Promise<{ outcome: SecretOutcome; webhooks: string[] }> {
  const { material, outcome } = await ensureCertificateSecret(client, {
    namespace: flags.namespace,
    name: flags.secretName,
    dnsNames: serviceDnsNames(flags.serviceName, flags.namespace),
    validityDays: flags.validityDays,
    now,
    logger,
  });
  writeFileSync(join(flags.certificateDir, SECRET_KEYS.cert), material.certPem);
  writeFileSync(join(flags.certificateDir, SECRET_KEYS.key), material.keyPem, { mode: 0o600 });
  writeFileSync(join(flags.certificateDir, SECRET_KEYS.ca), material.caBundle);
  const webhooks = await applyCaBundle(
    client,
    { configurationName: flags.configurationName, service: { namespace: flags.namespace, name: flags.serviceName } },
    material.caBundle,
  );
  return { outcome, webhooks };
}
