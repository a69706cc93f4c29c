import { SriovDraError } from '@sriov-dra/contract';
import { KubeClient, errorMessage } from '@sriov-dra/k8s';
import { applyUpstreamOwnedCrds, crdsApplySucceeded, formatCrdsReport } from './apply-crds.ts';
import { CRDS_APPLY, CRDS_COMMAND, crdsUsage, parseCrdsApplyFlags } from './crds-flags.ts';

/** Exit statuses: done; a CRD refused or spec.dra lost; a wrong command line or an unusable API server. */
export const CRDS_EXIT = { done: 0, refused: 1, unusable: 2 } as const;

interface Output {
  write(text: string): unknown;
}

/** `node-policy-operator crds apply …`: the plan or its outcome on stdout, one line per CRD. Returns the exit status. */
export async function crdsCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  const [action, ...rest] = argv;
  if (action === '--help' || action === '-h' || rest.includes('--help') || rest.includes('-h')) {
    out.write(crdsUsage());
    return CRDS_EXIT.done;
  }
  if (action !== CRDS_APPLY) {
    const detail = action === undefined ? 'no action given' : `unknown action ${JSON.stringify(action)}`;
    const error = new SriovDraError('InvalidComponentSetting', detail, {
      object: { kind: 'Command', name: CRDS_COMMAND },
      remedy: `run ${CRDS_COMMAND} ${CRDS_APPLY}`,
    });
    err.write(`${error.message}\n`);
    return CRDS_EXIT.unusable;
  }
  const flags = parseCrdsApplyFlags(rest);
  if (!flags.ok) {
    err.write(`${flags.error.message}\n`);
    return CRDS_EXIT.unusable;
  }
  let client: KubeClient | undefined;
  try {
    client = KubeClient.fromKubeConfig(flags.value.kubeconfig, { userAgent: 'sriov-dra/node-policy-operator-crds' });
    const report = await applyUpstreamOwnedCrds(client, flags.value);
    for (const line of formatCrdsReport(report)) out.write(`${line}\n`);
    if (report.results.every((result) => result.action === 'unchanged')) out.write(`${CRDS_COMMAND} ${CRDS_APPLY}: nothing to change\n`);
    return crdsApplySucceeded(report) ? CRDS_EXIT.done : CRDS_EXIT.refused;
  } catch (error) {
    err.write(`${CRDS_COMMAND} ${CRDS_APPLY}: ${errorMessage(error)}\n`);
    return CRDS_EXIT.unusable;
  } finally {
    client?.close();
  }
}
