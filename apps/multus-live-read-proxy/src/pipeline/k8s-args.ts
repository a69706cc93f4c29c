import { type Result, fail, ok } from '@sriov-dra/contract';

/** The Kubernetes identity the runtime passes in CNI_ARGS (Multus's K8sArgs). */
export interface K8sArgs {
  readonly podNamespace: string;
  readonly podName: string;
  /** Empty when the runtime did not send K8S_POD_UID. */
  readonly podUID: string;
  readonly infraContainerID: string;
}

function lastValue(args: readonly (readonly [string, string])[], key: string): string {
  let value = '';
  for (const [name, text] of args) if (name === key) value = text;
  return value;
}

/** K8S_POD_* as sent; any may be empty (libcni's LoadArgs: a repeated key keeps its last value). */
export function k8sArgsOf(args: readonly (readonly [string, string])[]): K8sArgs {
  return {
    podNamespace: lastValue(args, 'K8S_POD_NAMESPACE'),
    podName: lastValue(args, 'K8S_POD_NAME'),
    podUID: lastValue(args, 'K8S_POD_UID'),
    infraContainerID: lastValue(args, 'K8S_POD_INFRA_CONTAINER_ID'),
  };
}

/**
 * The Pod identity ADD needs: its namespace and name are required, its UID optional (checked when sent).
 * DEL uses k8sArgsOf instead and requires nothing: cleanup never depends on the Pod (§10.2).
 */
export function readK8sArgs(args: readonly (readonly [string, string])[], containerID: string): Result<K8sArgs> {
  const k8s = k8sArgsOf(args);
  const { podNamespace, podName } = k8s;
  if (podNamespace === '' || podName === '') {
    return fail('InvalidComponentSetting', `CNI_ARGS of container ${containerID} lack ${podNamespace === '' ? 'K8S_POD_NAMESPACE' : 'K8S_POD_NAME'}`, {
      remedy: 'the container runtime must pass K8S_POD_NAMESPACE and K8S_POD_NAME in CNI_ARGS, as containerd and CRI-O do for Kubernetes Pods',
    });
  }
  return ok(k8s);
}

/**
 * CNI_ARGS handed to each delegate, as Multus builds them: IgnoreUnknown and the four Pod keys first,
 * then each pair of the request — filling a key that is still empty, appending any other — and the
 * selection's legacy MAC and IP requests last.
 */
export function delegateArgs(
  k8s: K8sArgs,
  requestArgs: readonly (readonly [string, string])[],
  legacy: { readonly mac?: string; readonly ips?: readonly string[] },
): (readonly [string, string])[] {
  const args: [string, string][] = [
    ['IgnoreUnknown', 'true'],
    ['K8S_POD_NAMESPACE', k8s.podNamespace],
    ['K8S_POD_NAME', k8s.podName],
    ['K8S_POD_INFRA_CONTAINER_ID', k8s.infraContainerID],
    ['K8S_POD_UID', k8s.podUID],
  ];
  for (const [key, value] of requestArgs) {
    const empty = args.find(([name, current]) => name === key && current === '');
    if (empty !== undefined && value !== '') empty[1] = value;
    else if (!args.some(([name]) => name === key)) args.push([key, value]);
  }
  if (legacy.mac !== undefined && legacy.mac !== '') args.push(['MAC', legacy.mac]);
  if (legacy.ips !== undefined && legacy.ips.length > 0) args.push(['IP', legacy.ips.join(',')]);
  return args;
}
