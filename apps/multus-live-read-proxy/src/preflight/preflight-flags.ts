import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Label, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { DEFAULT_DAEMON_CONFIG_PATH } from '../daemon-config.ts';
import type { ReportFormat } from './report.ts';

/** The subcommand's name on the daemon's command line. */
export const PREFLIGHT_COMMAND = 'preflight';

export interface PreflightFlags {
  readonly config: string;
  /** Absent: in-cluster configuration (run it in the daemon's own Pod, with the daemon's ServiceAccount). */
  readonly kubeconfig?: string;
  readonly nodeName?: string;
  /** Where the driver reads its SriovResourcePolicy and DeviceAttributes objects; absent: every namespace. */
  readonly driverNamespace?: string;
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
      the Node this report is about; its labels select the SriovResourcePolicies whose templates are checked
  --driver-namespace (env DRIVER_NAMESPACE)
      the SR-IOV DRA driver's namespace, where it reads SriovResourcePolicy and DeviceAttributes objects;
      unset means every namespace
  --output text|json [default text]
`;
}

export function parsePreflightFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<PreflightFlags> {
  let values: Partial<Record<'config' | 'kubeconfig' | 'node-name' | 'driver-namespace' | 'output', string>>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        kubeconfig: { type: 'string' },
        'node-name': { type: 'string' },
        'driver-namespace': { type: 'string' },
        output: { type: 'string' },
      },
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
    return fail('InvalidComponentSetting', `${JSON.stringify(output)} is neither text nor json`, { object: { kind: 'Flag', name: '--output' } });
  }
  const nodeName = values['node-name'] ?? env['NODE_NAME'];
  if (nodeName !== undefined && nodeName !== '' && !isDns1123Subdomain(nodeName)) {
    return fail('InvalidComponentSetting', `${JSON.stringify(nodeName)} is not a Node name`, { object: { kind: 'Flag', name: '--node-name' } });
  }
  const driverNamespace = values['driver-namespace'] ?? env['DRIVER_NAMESPACE'];
  if (driverNamespace !== undefined && driverNamespace !== '' && !isDns1123Label(driverNamespace)) {
    return fail('InvalidComponentSetting', `${JSON.stringify(driverNamespace)} is not a namespace name`, {
      object: { kind: 'Flag', name: '--driver-namespace' },
    });
  }
  const kubeconfig = values.kubeconfig ?? env['KUBECONFIG'];
  return ok({
    config: values.config ?? env['MULTUS_DAEMON_CONFIG'] ?? DEFAULT_DAEMON_CONFIG_PATH,
    ...(kubeconfig === undefined || kubeconfig === '' ? {} : { kubeconfig }),
    ...(nodeName === undefined || nodeName === '' ? {} : { nodeName }),
    ...(driverNamespace === undefined || driverNamespace === '' ? {} : { driverNamespace }),
    output,
  });
}
