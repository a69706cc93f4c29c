import { KubeClient, errorMessage } from '@sriov-dra/k8s';
import { wantsHelp } from '../daemon-flags.ts';
import { preflightExitCode } from './checks.ts';
import { parsePreflightFlags, preflightUsage } from './preflight-flags.ts';
import { runPreflight } from './preflight.ts';
import { formatReport } from './report.ts';

/** Exit status for a bad command line, as for the daemon. */
const EXIT_USAGE = 2;

/** `multus-live-read-proxy preflight …`: prints the report and returns the process's exit status. */
export async function preflightCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  out: { write(text: string): unknown },
  err: { write(text: string): unknown },
): Promise<number> {
  if (wantsHelp(argv)) {
    out.write(preflightUsage());
    return 0;
  }
  const flags = parsePreflightFlags(argv, env);
  if (!flags.ok) {
    err.write(`${flags.error.message}\n`);
    return EXIT_USAGE;
  }
  let client: KubeClient;
  try {
    client = flags.value.kubeconfig === undefined ? KubeClient.inCluster() : KubeClient.fromKubeConfig(flags.value.kubeconfig);
  } catch (error) {
    err.write(`cannot build an API client: ${errorMessage(error)}; pass --kubeconfig or run in the daemon's Pod\n`);
    return EXIT_USAGE;
  }
  try {
    const { config, nodeName, driverNamespace } = flags.value;
    const checks = await runPreflight({ configPath: config, client, env, nodeName, driverNamespace });
    out.write(formatReport({ config: flags.value.config, nodeName: flags.value.nodeName, checks }, flags.value.output));
    return preflightExitCode(checks);
  } finally {
    client.close();
  }
}
