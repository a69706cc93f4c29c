import { SriovDraError, annotations } from '@sriov-dra/contract';
import { type ManagedSelection, mergeManagedSelections } from '@sriov-dra/cni-render';
import { type KubeClient, type Pod, annotationChanges, patchGuarded, resourceTypes } from '@sriov-dra/k8s';

/** The consumer the selections belong to, as resolved and verified for this binding. */
export interface SelectionTarget {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The node this driver serves: a Pod that is no longer bound to it is not written to. */
  readonly nodeName: string;
}

export interface PodSelectionsWrite {
  /** False when the Pod already carried exactly these selections (repair and retries write nothing). */
  readonly written: boolean;
  /** PATCH requests sent: 0 when nothing needed writing, more than 1 after concurrent writers. */
  readonly attempts: number;
  /** The Pod as written (or as found, when nothing needed writing): a later write can be tested against it. */
  readonly pod: Pod;
}

/**
 * Publishes the Pod's managed network selections and registry (§8.1 step 4, §8.4 step 2): every
 * desired attachment of every checkpointed claim of this Pod, released claims' own entries removed,
 * other writers' entries and order kept (mergeManagedSelections). The JSON Patch tests the Pod's UID
 * and resourceVersion, so a concurrent writer costs a re-read and a recomputation, never a lost entry;
 * the Pod's node is checked on every attempt, and `revalidate` on every re-read. Refusals (a selection conflict, the annotation size
 * limit) are typed and write nothing.
 */
export async function publishPodSelections(
  client: KubeClient,
  target: SelectionTarget,
  selections: { readonly desired: readonly ManagedSelection[]; readonly releasedClaims?: readonly string[] },
  options: {
    readonly current?: Pod;
    readonly signal?: AbortSignal;
    /** Verified again before every attempt that reads the Pod again (the reservation, §8.1 step 4). */
    readonly revalidate?: (signal?: AbortSignal) => Promise<void>;
  } = {},
): Promise<PodSelectionsWrite> {
  const object = { kind: 'Pod', namespace: target.namespace, name: target.name, uid: target.uid };
  const result = await patchGuarded<Pod & { metadata: { name: string; uid: string; resourceVersion: string } }>(
    client,
    resourceTypes.pod,
    { namespace: target.namespace, name: target.name, uid: target.uid },
    (live) => {
      if (live.spec.nodeName !== target.nodeName) {
        throw new SriovDraError('ConsumerMismatch', `the Pod runs on node ${live.spec.nodeName ?? '(none)'}, not ${target.nodeName}`, {
          object,
          remedy: 'the claim was allocated for another node; the kubelet of that node prepares it',
        });
      }
      const merged = mergeManagedSelections({
        pod: { uid: target.uid, namespace: target.namespace, name: target.name, annotations: live.metadata.annotations },
        desired: selections.desired,
        ...(selections.releasedClaims === undefined ? {} : { releasedClaims: selections.releasedClaims }),
      });
      if (!merged.ok) throw merged.error;
      if (!merged.value.changed) return [];
      return annotationChanges(live.metadata.annotations, {
        [annotations.networks]: merged.value.networks,
        [annotations.managedNetworks]: merged.value.registry,
      });
    },
    {
      signal: options.signal,
      ...(options.current === undefined ? {} : { current: options.current }),
      ...(options.revalidate === undefined ? {} : { revalidate: options.revalidate }),
    },
  );
  return { written: result.changed, attempts: result.attempts, pod: result.object };
}
