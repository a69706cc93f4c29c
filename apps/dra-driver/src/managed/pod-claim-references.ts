import { type Result, fail, ok } from '@sriov-dra/contract';
import { claimObject } from './claim-reservation.ts';
import type { ConsumerClaim, ConsumerPod } from './consumer-objects.ts';
import { podObject } from './consumer-pod.ts';
import type { PodClaimName } from './pod-claim-names.ts';

/** One actual claim the Pod uses, with every Pod entry that names it. */
export interface PodClaimReference {
  readonly name: string;
  readonly uid: string;
  /** The pod.spec.resourceClaims entries resolving to this claim, in Pod order (several when aliased). */
  readonly podClaimNames: readonly string[];
}

/** The names of a Pod's claims that must be read live: every resolved name except the claim at hand. */
export function otherClaimNames(names: readonly PodClaimName[], claim: ConsumerClaim): readonly string[] {
  const other = new Set<string>();
  for (const name of names) if (name.kind === 'claim' && name.claimName !== claim.name) other.add(name.claimName);
  return [...other];
}

/**
 * §6.1 steps 5–6: the Pod's claims and its use of this one. Every resolved entry's claim must exist;
 * a template-generated claim must be controlled by this Pod in the Pod's namespace (resourceclaim.IsForPod
 * without PodGroup ownership, which this scope excludes), else a claim left by an earlier Pod of the same
 * name, or made by hand, would be taken for this Pod's. Entries naming the same claim are one claim,
 * keyed by UID. Finally this claim, by UID, must be among them: a reservation naming a Pod that does not
 * use the claim authorizes nothing, and no other Pod is searched for.
 *
 * `others` holds the live reads of otherClaimNames(), undefined for one that does not exist; the claim
 * at hand stands for its own name.
 */
export function verifyPodClaimReferences(
  pod: ConsumerPod,
  names: readonly PodClaimName[],
  claim: ConsumerClaim,
  others: ReadonlyMap<string, ConsumerClaim | undefined>,
): Result<readonly PodClaimReference[]> {
  const byUID = new Map<string, { name: string; uid: string; podClaimNames: string[] }>();
  for (const name of names) {
    if (name.kind === 'absent') continue;
    const referenced = name.claimName === claim.name ? claim : others.get(name.claimName);
    if (referenced === undefined) {
      return fail('ApiNotFound', `ResourceClaim ${pod.namespace}/${name.claimName} of entry "${name.podClaimName}" does not exist`, {
        object: podObject(pod, 'spec.resourceClaims'),
        remedy: 'the kubelet starts a Pod only with all its claims; retry once the claim exists, or recreate the Pod if it was deleted',
      });
    }
    if (name.mustCheckOwner && (referenced.namespace !== pod.namespace || referenced.controller?.uid !== pod.uid)) {
      const controller =
        referenced.controller === undefined
          ? 'has no controller'
          : `is controlled by ${referenced.controller.kind} ${referenced.controller.name} (${referenced.controller.uid})`;
      return fail(
        'ConsumerMismatch',
        `the claim of entry "${name.podClaimName}" was not created for Pod ${pod.namespace}/${pod.name} (${pod.uid}): it ${controller}`,
        {
          object: claimObject(referenced, 'metadata.ownerReferences'),
          remedy:
            'a claim generated from a template belongs to the Pod it was generated for; delete the stale claim so that the resource claim controller generates one for this Pod',
        },
      );
    }
    const seen = byUID.get(referenced.uid);
    if (seen === undefined) byUID.set(referenced.uid, { name: referenced.name, uid: referenced.uid, podClaimNames: [name.podClaimName] });
    else seen.podClaimNames.push(name.podClaimName);
  }
  if (!byUID.has(claim.uid)) {
    const used = [...byUID.values()].map((reference) => reference.name);
    return fail(
      'ConsumerMismatch',
      `the Pod does not use ResourceClaim ${claim.namespace}/${claim.name} (${claim.uid}): its spec.resourceClaims resolve to ${used.length === 0 ? 'no claim' : used.join(', ')}`,
      {
        object: podObject(pod, 'spec.resourceClaims'),
        remedy: 'the claim is reserved for a Pod that does not reference it; do not edit reservations by hand, and let the scheduler re-allocate the claim',
      },
    );
  }
  return ok([...byUID.values()]);
}
