import { type Result, isDns1123Label, ok } from '@sriov-dra/contract';
import type { LogLevel } from '@sriov-dra/k8s';
import { type FlagSpec, flagError, flagUsage, readFlagTable } from '../cli/flag-table.ts';
import { LOG_LEVEL_FLAG, parseLogLevelFlag } from '../cli/log-level-flag.ts';

/** The subcommand's name on the operator's command line. */
export const WEBHOOK_COMMAND = 'webhook';

export interface WebhookFlags {
  readonly certFile: string;
  readonly keyFile: string;
  readonly host: string;
  readonly port: number;
  readonly operatorNamespace: string;
  /** Absent: info. */
  readonly logLevel?: LogLevel;
}

/** A flag beats its environment variable, which beats the default. */
const FLAGS = {
  'tls-cert-file': { env: 'TLS_CERT_FILE', fallback: '/etc/webhook/certs/tls.crt', help: 'serving certificate (PEM, chain allowed); re-read when it changes' },
  'tls-private-key-file': { env: 'TLS_PRIVATE_KEY_FILE', fallback: '/etc/webhook/certs/tls.key', help: 'private key of the serving certificate (PEM)' },
  'bind-address': { env: 'BIND_ADDRESS', fallback: '0.0.0.0', help: 'address to listen on' },
  port: { env: 'WEBHOOK_PORT', fallback: '9443', help: 'HTTPS port of the review paths and /healthz; 0 picks a free port' },
  'operator-namespace': { env: 'OPERATOR_NAMESPACE', help: 'the operator namespace: home of the default policy (required)' },
  'log-level': LOG_LEVEL_FLAG,
} as const satisfies Record<string, FlagSpec>;

export function webhookUsage(): string {
  return `Usage: node-policy-operator ${WEBHOOK_COMMAND} [flags]

Serves the validating admission webhook of SriovNetworkNodePolicy (POST /validate-sriovnetworknodepolicy)
and SriovNetwork (POST /validate-sriovnetwork) over TLS.

${flagUsage(FLAGS)}
`;
}

export function parseWebhookFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<WebhookFlags> {
  const read = readFlagTable(FLAGS, argv, env, WEBHOOK_COMMAND);
  if (!read.ok) return read;
  const value = read.value;
  const portText = value('port') ?? '';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) return flagError('port', `${JSON.stringify(portText)} is not a port number`);
  const operatorNamespace = value('operator-namespace');
  if (operatorNamespace === undefined) return flagError('operator-namespace', 'is required: the namespace the operator runs in');
  if (!isDns1123Label(operatorNamespace)) return flagError('operator-namespace', `${JSON.stringify(operatorNamespace)} is not a namespace name`);
  const logLevel = parseLogLevelFlag(value('log-level'));
  if (!logLevel.ok) return logLevel;
  return ok({
    certFile: value('tls-cert-file') ?? '',
    keyFile: value('tls-private-key-file') ?? '',
    host: value('bind-address') ?? '',
    port,
    operatorNamespace,
    ...(logLevel.value === undefined ? {} : { logLevel: logLevel.value }),
  });
}
