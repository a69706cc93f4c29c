import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { DEFAULT_DAEMON_CONFIG_PATH } from '../daemon-config.ts';
import type { ReportFormat } from './report.ts';

/** The subcommand's name on the daemon's command line. */
export const PREFLIGHT_COMMAND = 'preflight';

export interface PreflightFlags {
  readonly config: string;
  /** Absent: in-cluster configuration (run it in the daemon's own Pod, with the daemon's ServiceAccount). */
  readonly kubeconfig?: string;
  readonly nodeName?: string;
  readonly output: ReportFormat;
}

export function preflightUsage(): string {
  return `Usage: multus-live-read-proxy ${PREFLIGHT_COMMAND} [flags]

Checks this node and cluster before managed SR-IOV claims are enabled: exit 0 when every check passes
(warnings allowed), 1 when one fails, 2 for a bad command line.

  --config (env MULTUS_DAEMON_CONFIG) [default ${DEFAULT_DAEMON_CONFIG_PATH}]
      the daemon-config.json the daemon runs with
  --kubeconfig (env KUBECONFIG)
      kubeconfig of the identity to check; unset means in-cluster configuration
  --node-name (env NODE_NAME)
      the Node this report is about
  --output text|json [default text]
`;
}

export function parsePreflightFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<PreflightFlags> {
  let values: Partial<Record<'config' | 'kubeconfig' | 'node-name' | 'output', string>>;
  try {
    values = parseArgs({
      args: [...argv],
      options: { config: { type: 'string' }, kubeconfig: { type: 'string' }, 'node-name': { type: 'string' }, output: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: `run ${PREFLIGHT_COMMAND} --help for the flags` });
  }
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json') {
    return fail('InvalidComponentSetting', `--output: ${JSON.stringify(output)} is neither text nor json`, { object: { kind: 'Flag', name: '--output' } });
  }
  const nodeName = values['node-name'] ?? env['NODE_NAME'];
  if (nodeName !== undefined && nodeName !== '' && !isDns1123Subdomain(nodeName)) {
    return fail('InvalidComponentSetting', `--node-name: ${JSON.stringify(nodeName)} is not a Node name`, { object: { kind: 'Flag', name: '--node-name' } });
  }
  const kubeconfig = values.kubeconfig ?? env['KUBECONFIG'];
  return ok({
    config: values.config ?? env['MULTUS_DAEMON_CONFIG'] ?? DEFAULT_DAEMON_CONFIG_PATH,
    ...(kubeconfig === undefined || kubeconfig === '' ? {} : { kubeconfig }),
    ...(nodeName === undefined || nodeName === '' ? {} : { nodeName }),
    output,
  });
}
