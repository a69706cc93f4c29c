import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import type { ReservedPod } from './claim-reservation.ts';
import type { ConsumerNode, ConsumerPod } from './consumer-objects.ts';

/** The node this driver serves, as the process recorded it when it started. */
export interface ServedNode {
  readonly name: string;
  readonly uid: string;
}

/**
 * Why the consumer is being resolved. `prepare` is a first managed prepare of the claim: nothing exists
 * for it yet, and a Pod that cannot receive managed networks is refused before anything is created.
 * `retry` continues a binding already recorded in the checkpoint: only identity is re-verified (§8.1: Pod
 * UID, node, reservation on each retry), because a Pod that started terminating meanwhile must still be
 * driven to a consistent state, and its release is the kubelet's unprepare, not a refusal here.
 */
export type ResolvePurpose = 'prepare' | 'retry';

export function podObject(pod: { readonly namespace: string; readonly name: string; readonly uid?: string }, field?: string): ObjectRef {
  return {
    kind: 'Pod',
    namespace: pod.namespace,
    name: pod.name,
    ...(pod.uid === undefined ? {} : { uid: pod.uid }),
    ...(field === undefined ? {} : { field }),
  };
}

/**
 * §6.1 step 3, on the live Pod and Node: the Pod under the reserved name is the reserved one (same UID,
 * not a replacement created under the same name), it is bound to the node this driver serves, and that
 * Node object is the one the driver started for (a Node deleted and re-registered under the same name
 * has a new UID, and bindings keyed by the old one must not be extended to it). `undefined` means the
 * object does not exist. Returns the Pod, proven to be the consumer.
 */
export function verifyConsumerPod(
  reserved: ReservedPod,
  pod: ConsumerPod | undefined,
  node: ConsumerNode | undefined,
  served: ServedNode,
): Result<ConsumerPod> {
  const verified = verifyReservedPod(reserved, pod, served.name);
  if (!verified.ok) return verified;
  const nodeRemedy = `the Node object ${served.name} was deleted or re-created after this driver started; restart the driver on this node so that it serves the current Node`;
  if (node === undefined) {
    return fail('ConsumerMismatch', 'the Node this driver serves does not exist', { object: { kind: 'Node', name: served.name }, remedy: nodeRemedy });
  }
  if (node.uid !== served.uid) {
    return fail('ConsumerMismatch', `the Node has UID ${node.uid}, this driver started for UID ${served.uid}`, {
      object: { kind: 'Node', name: served.name, uid: node.uid },
      remedy: nodeRemedy,
    });
  }
  return verified;
}

/** The Pod part of §6.1 step 3: the reserved Pod exists under its UID and is bound to `nodeName`. */
export function verifyReservedPod(reserved: ReservedPod, pod: ConsumerPod | undefined, nodeName: string): Result<ConsumerPod> {
  if (pod === undefined) {
    return fail('ConsumerMismatch', 'the Pod the claim is reserved for does not exist', { object: podObject(reserved) });
  }
  if (pod.uid !== reserved.uid) {
    return fail('ConsumerMismatch', `the Pod has UID ${pod.uid}, the claim is reserved for UID ${reserved.uid}: it was replaced under the same name`, {
      object: podObject(reserved),
    });
  }
  if (pod.nodeName !== nodeName) {
    return fail(
      'ConsumerMismatch',
      `the Pod is ${pod.nodeName === '' ? 'not bound to a node' : `bound to node ${pod.nodeName}`}, this driver serves ${nodeName}`,
      {
        object: podObject(pod, 'spec.nodeName'),
      },
    );
  }
  return ok(pod);
}

/**
 * §6.1 step 4 for a first prepare: a terminating Pod is about to lose its network namespace, and a
 * hostNetwork Pod has none of its own to attach a VF to (§4.1 keeps both outside managed mode). A retry
 * skips these checks (see ResolvePurpose).
 */
export function checkPodEligibility(pod: ConsumerPod, purpose: ResolvePurpose): Result<void> {
  if (purpose === 'retry') return ok(undefined);
  if (pod.terminating) {
    return fail('PodNotEligible', 'the Pod is terminating', {
      object: podObject(pod, 'metadata.deletionTimestamp'),
      remedy: 'a terminating Pod receives no new managed network; the kubelet releases the claim once the Pod is gone',
    });
  }
  if (pod.hostNetwork) {
    return fail('PodNotEligible', 'the Pod uses hostNetwork', {
      object: podObject(pod, 'spec.hostNetwork'),
      remedy: 'managed networks attach VFs inside the Pod network namespace; recreate the Pod without hostNetwork, or use manual mode for it',
    });
  }
  return ok(undefined);
}
