// Workload Pods on the real node: the scenarios' Pods with the locally packed busybox image (never
// pulled), run to Running by the kubelet, and what their container itself sees of its interfaces.
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import type { RealStack } from './real-stack.ts';

/** A workload's process: sleeps until SIGTERM, which it obeys at once. */
export const SLEEPER = "trap 'exit 0' TERM; sleep 1000000 & wait";

/** `pod` with its containers running the node's busybox image, as the cluster's own image would run. */
export function onRealNode(pod: Record<string, unknown>, image: string): Record<string, unknown> {
  const spec = pod['spec'] as { containers: Record<string, unknown>[] };
  return {
    ...pod,
    spec: {
      ...spec,
      // The shell ends on SIGTERM (a bare sleep as PID 1 ignores it), so deletion does not wait out the grace period.
      containers: spec.containers.map((container) => ({ ...container, image, imagePullPolicy: 'Never', command: ['/bin/sh', '-c', SLEEPER] })),
    },
  };
}

interface PodStatus {
  readonly status?: { readonly phase?: string; readonly containerStatuses?: readonly { readonly ready?: boolean; readonly restartCount?: number }[] };
}

export async function waitRunning(stack: RealStack, namespace: string, name: string, timeoutMs = 120_000): Promise<KubeObject & PodStatus> {
  let last: (KubeObject & PodStatus) | undefined;
  await waitFor(
    `Pod ${namespace}/${name} to be Running`,
    async () => {
      last = await stack.admin.get<KubeObject & PodStatus>(resourceTypes.pod, { namespace, name });
      return last.status?.phase === 'Running' && (last.status.containerStatuses ?? []).every((status) => status.ready === true);
    },
    { timeoutMs, describe: () => `${JSON.stringify(last?.status)}\n${events(stack, namespace)}\n${stack.logTail()}` },
  );
  if (last === undefined) throw new Error('unreachable: waitFor returned without a read');
  return last;
}

function events(stack: RealStack, namespace: string): string {
  try {
    return stack.kubectl(['get', 'events', '-n', namespace, '--sort-by=.lastTimestamp']).split('\n').slice(-25).join('\n');
  } catch (error) {
    return String(error);
  }
}

/** IPv4 addresses per interface as the container's own `ip -o -4 addr` prints them (kubectl exec). */
export function containerAddresses(stack: RealStack, namespace: string, pod: string): Map<string, string[]> {
  const text = stack.kubectl(['exec', '-n', namespace, pod, '--', 'ip', '-o', '-4', 'addr', 'show']);
  const addresses = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    // "3: dra0    inet 192.0.2.10/24 brd ... scope global dra0\       valid_lft ..."
    const match = /^\d+:\s+(\S+)\s+inet\s+([\d.]+)\//.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    addresses.set(match[1], [...(addresses.get(match[1]) ?? []), match[2]]);
  }
  return addresses;
}

export async function deletePodAndWait(client: KubeClient, namespace: string, name: string, timeoutMs = 120_000): Promise<void> {
  await client.delete(resourceTypes.pod, { namespace, name }).catch(() => undefined);
  await waitFor(
    `Pod ${namespace}/${name} to be gone`,
    async () =>
      client.get(resourceTypes.pod, { namespace, name }).then(
        () => false,
        () => true,
      ),
    { timeoutMs },
  );
}

interface ComponentPod extends KubeObject {
  readonly status?: { readonly containerStatuses?: readonly { readonly ready?: boolean; readonly restartCount?: number }[] };
}

/** The release's Pods of one component (by its app.kubernetes.io/name label). */
export async function componentPods(stack: RealStack, namespace: string, component: string): Promise<ComponentPod[]> {
  return (await stack.admin.list<ComponentPod>(resourceTypes.pod, { namespace, labelSelector: `app.kubernetes.io/name=${component}` })).items;
}

/** Deletes the component's Pod and waits until its controller's replacement is ready. */
export async function replaceComponentPod(stack: RealStack, namespace: string, component: string): Promise<void> {
  const [current] = await componentPods(stack, namespace, component);
  if (current === undefined) throw new Error(`no ${component} Pod in ${namespace}`);
  await stack.admin.delete(resourceTypes.pod, { namespace, name: current.metadata.name });
  await waitFor(
    `a new ${component} Pod to be ready`,
    async () =>
      (await componentPods(stack, namespace, component)).some(
        (candidate) =>
          candidate.metadata.uid !== current.metadata.uid &&
          (candidate.status?.containerStatuses ?? []).every((status) => status.ready === true) &&
          (candidate.status?.containerStatuses ?? []).length > 0,
      ),
    { timeoutMs: 120_000, describe: () => stack.logTail() },
  );
}

/** Deletes every Pod in `namespace` and waits until the kubelet has run them all down (CNI DEL, unprepare). */
export async function deleteNamespacePods(client: KubeClient, namespace: string, timeoutMs = 120_000): Promise<void> {
  for (const pod of (await client.list(resourceTypes.pod, { namespace })).items) {
    await client.delete(resourceTypes.pod, { namespace, name: pod.metadata.name }).catch(() => undefined);
  }
  await waitFor(`the Pods of ${namespace} to be gone`, async () => (await client.list(resourceTypes.pod, { namespace })).items.length === 0, { timeoutMs });
}
