import { type Result, isDns1123Label, ok } from '@sriov-dra/contract';
import type { LogLevel } from '@sriov-dra/k8s';
import { type FlagSpec, flagError, flagUsage, readFlagTable } from '../cli/flag-table.ts';
import { LOG_LEVEL_FLAG, parseLogLevelFlag } from '../cli/log-level-flag.ts';

/** The subcommand's name on the operator's command line. */
export const WEBHOOK_CERTIFICATES_COMMAND = 'webhook-certificates';

export interface WebhookCertificatesFlags {
  readonly namespace: string;
  readonly serviceName: string;
  readonly secretName: string;
  readonly configurationName: string;
  readonly validityDays: number;
  readonly certificateDir: string;
  /** Unset: the Pod's service account. */
  readonly kubeconfig?: string;
  readonly logLevel?: LogLevel;
}

/** A flag beats its environment variable, which beats the default. */
const FLAGS = {
  namespace: { env: 'WEBHOOK_NAMESPACE', help: "the namespace of the webhook's Service and certificate Secret (required)" },
  'service-name': { env: 'WEBHOOK_SERVICE_NAME', help: 'the Service the API server calls the webhook through; the certificate names it (required)' },
  'secret-name': { env: 'TLS_SECRET_NAME', help: 'the Secret holding ca.crt, tls.crt and tls.key, created when missing (required)' },
  'webhook-configuration': { env: 'WEBHOOK_CONFIGURATION_NAME', help: 'the ValidatingWebhookConfiguration whose caBundle is applied (required)' },
  'validity-days': { env: 'CERTIFICATE_VALIDITY_DAYS', fallback: '3650', help: 'lifetime of a new CA and serving certificate' },
  'certificate-dir': { env: 'CERTIFICATE_DIR', fallback: '/etc/webhook/certs', help: 'where tls.crt, tls.key and ca.crt are written for the webhook server' },
  kubeconfig: { env: 'KUBECONFIG', help: "kubeconfig file; unset: the Pod's service account" },
  'log-level': LOG_LEVEL_FLAG,
} as const satisfies Record<string, FlagSpec>;

export function webhookCertificatesUsage(): string {
  return `Usage: node-policy-operator ${WEBHOOK_CERTIFICATES_COMMAND} [flags]

Sets up the webhook's serving certificate before the server starts: creates the Secret once (or reuses it,
renewing it when a third of its lifetime is left or its DNS names differ from the Service's), writes the
certificate files, and applies the caBundle to the ValidatingWebhookConfiguration server-side.

${flagUsage(FLAGS)}
`;
}

export function parseWebhookCertificatesFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<WebhookCertificatesFlags> {
  const read = readFlagTable(FLAGS, argv, env, WEBHOOK_CERTIFICATES_COMMAND);
  if (!read.ok) return read;
  const value = read.value;
  const required = (flag: 'namespace' | 'service-name' | 'secret-name' | 'webhook-configuration'): Result<string> => {
    const given = value(flag);
    return given === undefined ? flagError(flag, 'is required') : ok(given);
  };
  const namespace = required('namespace');
  if (!namespace.ok) return namespace;
  if (!isDns1123Label(namespace.value)) return flagError('namespace', `${JSON.stringify(namespace.value)} is not a namespace name`);
  const serviceName = required('service-name');
  if (!serviceName.ok) return serviceName;
  if (!isDns1123Label(serviceName.value)) return flagError('service-name', `${JSON.stringify(serviceName.value)} is not a Service name`);
  const secretName = required('secret-name');
  if (!secretName.ok) return secretName;
  const configurationName = required('webhook-configuration');
  if (!configurationName.ok) return configurationName;
  const daysText = value('validity-days') ?? '';
  const validityDays = Number(daysText);
  if (!/^\d+$/.test(daysText) || validityDays < 1 || validityDays > 36_500)
    return flagError('validity-days', `${JSON.stringify(daysText)} is not a number of days from 1 to 36500`);
  const logLevel = parseLogLevelFlag(value('log-level'));
  if (!logLevel.ok) return logLevel;
  const kubeconfig = value('kubeconfig');
  return ok({
    namespace: namespace.value,
    serviceName: serviceName.value,
    secretName: secretName.value,
    configurationName: configurationName.value,
    validityDays,
    certificateDir: value('certificate-dir') ?? '',
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(logLevel.value === undefined ? {} : { logLevel: logLevel.value }),
  });
}
