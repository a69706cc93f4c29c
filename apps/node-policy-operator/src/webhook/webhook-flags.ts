import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Label, ok } from '@sriov-dra/contract';

/** The subcommand's name on the operator's command line. */
export const WEBHOOK_COMMAND = 'webhook';

export interface WebhookFlags {
  readonly certFile: string;
  readonly keyFile: string;
  readonly host: string;
  readonly port: number;
  readonly operatorNamespace: string;
}

interface FlagSpec {
  readonly env: string;
  readonly fallback?: string;
  readonly help: string;
}

/** A flag beats its environment variable, which beats the default. */
const FLAGS = {
  'tls-cert-file': { env: 'TLS_CERT_FILE', fallback: '/etc/webhook/certs/tls.crt', help: 'serving certificate (PEM, chain allowed); re-read when it changes' },
  'tls-private-key-file': { env: 'TLS_PRIVATE_KEY_FILE', fallback: '/etc/webhook/certs/tls.key', help: 'private key of the serving certificate (PEM)' },
  'bind-address': { env: 'BIND_ADDRESS', fallback: '0.0.0.0', help: 'address to listen on' },
  port: { env: 'WEBHOOK_PORT', fallback: '9443', help: 'HTTPS port of the review paths and /healthz; 0 picks a free port' },
  'operator-namespace': { env: 'OPERATOR_NAMESPACE', help: 'the operator namespace: home of the default policy (required)' },
} as const satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;

export function webhookUsage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]: [string, FlagSpec]) => {
    const fallback = spec.fallback === undefined ? '' : ` [default ${spec.fallback}]`;
    return `  --${name} (env ${spec.env})${fallback}\n      ${spec.help}`;
  });
  return `Usage: node-policy-operator ${WEBHOOK_COMMAND} [flags]

Serves the validating admission webhook of SriovNetworkNodePolicy (POST /validate-sriovnetworknodepolicy)
and SriovNetwork (POST /validate-sriovnetwork) over TLS.

${lines.join('\n')}
`;
}

function flagError(flag: FlagName, detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: `--${flag}` } });
}

export function parseWebhookFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<WebhookFlags> {
  let values: Partial<Record<FlagName, string>>;
  try {
    values = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' }])) as Record<FlagName, { type: 'string' }>,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: `run ${WEBHOOK_COMMAND} --help for the flags` });
  }
  const value = (flag: FlagName): string | undefined => {
    const spec: FlagSpec = FLAGS[flag];
    const given = values[flag] ?? env[spec.env];
    return given === undefined || given === '' ? spec.fallback : given;
  };
  const portText = value('port') ?? '';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) return flagError('port', `${JSON.stringify(portText)} is not a port number`);
  const operatorNamespace = value('operator-namespace');
  if (operatorNamespace === undefined) return flagError('operator-namespace', 'is required: the namespace the operator runs in');
  if (!isDns1123Label(operatorNamespace)) return flagError('operator-namespace', `${JSON.stringify(operatorNamespace)} is not a namespace name`);
  return ok({
    certFile: value('tls-cert-file') ?? '',
    keyFile: value('tls-private-key-file') ?? '',
    host: value('bind-address') ?? '',
    port,
    operatorNamespace,
  });
}
