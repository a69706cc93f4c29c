// A Pod's sandbox as the real node's containerd holds it. The CRI plugin labels every container it creates
// with its kind and the Pod's namespace and name; a sandbox's task is its pause process, which holds the
// sandbox's namespaces for the Pod's containers.
import type { RealNode } from './real-node.ts';

const KIND = 'io.cri-containerd.kind';
const POD_NAME = 'io.kubernetes.pod.name';
const POD_NAMESPACE = 'io.kubernetes.pod.namespace';

export interface PodSandbox {
  readonly id: string;
  /** The pause process (a host PID: the node shares this machine's PID namespace), while its task runs. */
  readonly pid: number | undefined;
}

/** Running tasks by container ID, from `ctr tasks ls` ("TASK PID STATUS" rows). */
function runningTasks(node: Pick<RealNode, 'ctr'>): Map<string, number> {
  const pids = new Map<string, number>();
  for (const line of node.ctr(['tasks', 'ls']).split('\n').slice(1)) {
    const [id, pid, status] = line.trim().split(/\s+/);
    if (id !== undefined && pid !== undefined && status === 'RUNNING') pids.set(id, Number(pid));
  }
  return pids;
}

function labelsOf(node: Pick<RealNode, 'ctr'>, id: string): Readonly<Record<string, string>> {
  try {
    return (JSON.parse(node.ctr(['containers', 'info', id])) as { Labels?: Record<string, string> }).Labels ?? {};
  } catch {
    // Removed between the listing and this read.
    return {};
  }
}

/** The Pod's sandboxes containerd still has (the kubelet removes a dead one after starting its replacement). */
export function podSandboxes(node: Pick<RealNode, 'ctr'>, namespace: string, pod: string): PodSandbox[] {
  const pids = runningTasks(node);
  return node
    .ctr(['containers', 'ls', '-q'])
    .split('\n')
    .filter((id) => id !== '')
    .flatMap((id) => {
      const labels = labelsOf(node, id);
      return labels[KIND] === 'sandbox' && labels[POD_NAMESPACE] === namespace && labels[POD_NAME] === pod ? [{ id, pid: pids.get(id) }] : [];
    });
}

/** The Pod's one running sandbox; throws when there is none or more than one. */
export function runningSandbox(node: Pick<RealNode, 'ctr'>, namespace: string, pod: string): { readonly id: string; readonly pid: number } {
  const running = podSandboxes(node, namespace, pod).flatMap((sandbox) => (sandbox.pid === undefined ? [] : [{ id: sandbox.id, pid: sandbox.pid }]));
  const [only] = running;
  if (only === undefined || running.length > 1) throw new Error(`${namespace}/${pod}: ${String(running.length)} running sandboxes in containerd`);
  return only;
}
