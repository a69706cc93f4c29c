import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Label, ok } from '@sriov-dra/contract';

/** The subcommand's name on the operator's command line; `apply` is its one action. */
export const CRDS_COMMAND = 'crds';
export const CRDS_APPLY = 'apply';

export interface CrdsApplyFlags {
  readonly dryRun: boolean;
  /** Absent: $KUBECONFIG, ~/.kube/config, then the Pod's ServiceAccount. */
  readonly kubeconfig?: string;
  /** Where the round-trip policy is created with dryRun=All (never stored). */
  readonly namespace: string;
}

export function crdsUsage(): string {
  return `Usage: node-policy-operator ${CRDS_COMMAND} ${CRDS_APPLY} [--dry-run] [--kubeconfig FILE] [-n NAMESPACE]

Installs the CRDs other projects own (Multus's NetworkAttachmentDefinition; the SR-IOV network operator's
SriovNetwork, SriovNetworkNodePolicy, SriovNetworkNodeState) in the form sriov-dra needs, beside the chart's
own: creates those missing; adds spec.dra (and status.conditions where upstream declares none) to every
served version of an installed SriovNetworkNodePolicy CRD, keeping everything else it has; refuses a CRD it
cannot extend safely. Then creates a policy with spec.dra with dryRun=All and checks that spec.dra comes
back as sent (where admission refuses that policy, that every served version declares spec.dra). Prints one line per CRD: created, upgraded, unchanged or refused (would create / would
upgrade with --dry-run). Running it again changes nothing.
Exit status: 0 done (or nothing to do), 1 a CRD refused or spec.dra did not survive, 2 the command line is
wrong or the API server could not be used.

  --dry-run
      print the plan; change nothing
  --kubeconfig FILE
      kubeconfig file [default: $KUBECONFIG, ~/.kube/config, then in-cluster]
  -n, --namespace NAMESPACE [default default]
      an existing namespace for the round-trip policy (created with dryRun=All, never stored)
`;
}

export function parseCrdsApplyFlags(argv: readonly string[]): Result<CrdsApplyFlags> {
  let values: { 'dry-run'?: boolean; kubeconfig?: string; namespace?: string };
  try {
    values = parseArgs({
      args: [...argv],
      options: { 'dry-run': { type: 'boolean' }, kubeconfig: { type: 'string' }, namespace: { type: 'string', short: 'n' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: `run ${CRDS_COMMAND} ${CRDS_APPLY} --help for the flags` });
  }
  const namespace = values.namespace ?? 'default';
  if (!isDns1123Label(namespace)) {
    return fail('InvalidComponentSetting', `${JSON.stringify(namespace)} is not a namespace name`, { object: { kind: 'Flag', name: '--namespace' } });
  }
  if (values.kubeconfig === '') return fail('InvalidComponentSetting', 'is empty', { object: { kind: 'Flag', name: '--kubeconfig' } });
  return ok({ dryRun: values['dry-run'] ?? false, namespace, ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }) });
}
