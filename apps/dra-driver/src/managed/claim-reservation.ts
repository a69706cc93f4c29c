import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import { type ConsumerClaim, type ConsumerReference, parseConsumerClaim } from './consumer-objects.ts';

/** The Pod a claim's reservation names: the consumer namespace is always the claim's. */
export interface ReservedPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export function claimObject(claim: ConsumerClaim, field?: string): ObjectRef {
  return { kind: 'ResourceClaim', namespace: claim.namespace, name: claim.name, uid: claim.uid, ...(field === undefined ? {} : { field }) };
}

function describeConsumer(consumer: ConsumerReference): string {
  const resource = consumer.apiGroup === '' ? consumer.resource : `${consumer.resource}.${consumer.apiGroup}`;
  return `${resource === '' ? '<no resource>' : resource} ${consumer.name === '' ? '<no name>' : consumer.name}`;
}

/**
 * §6.1 steps 1–2: the claim is allocated and reserved for exactly one Pod, named with its UID. Only a
 * core-group `pods` entry is a Pod: a PodGroup (scheduling.k8s.io), a Node or an unknown kind shares the
 * devices with consumers that never pass through a Pod's network setup, so managed networking refuses it
 * rather than guessing which Pod gets the interface.
 */
export function reservedPodOf(claim: ConsumerClaim): Result<ReservedPod> {
  if (claim.allocation === undefined) {
    return fail('InvalidApiObject', 'the claim is not allocated', {
      object: claimObject(claim, 'status.allocation'),
      remedy: 'the kubelet prepares a claim only after the scheduler allocated it; it retries once status.allocation is written',
    });
  }
  const { reservedFor } = claim;
  const [consumer] = reservedFor;
  if (consumer === undefined) {
    return fail('InvalidClaimReservation', 'status.reservedFor is empty: the claim is reserved for no consumer', {
      object: claimObject(claim, 'status.reservedFor'),
      remedy: 'the scheduler reserves the claim for the Pod it binds; the kubelet retries once the reservation is written',
    });
  }
  if (reservedFor.length > 1) {
    return fail('InvalidClaimReservation', `status.reservedFor holds ${reservedFor.length} consumers (${reservedFor.map(describeConsumer).join(', ')})`, {
      object: claimObject(claim, 'status.reservedFor'),
      remedy: 'a managed claim serves exactly one Pod; give each Pod its own claim, preferably from a ResourceClaimTemplate',
    });
  }
  if (consumer.apiGroup !== '' || consumer.resource !== 'pods') {
    return fail('InvalidClaimReservation', `the claim is reserved for ${describeConsumer(consumer)}, not for a Pod`, {
      object: claimObject(claim, 'status.reservedFor'),
      remedy:
        'managed networking attaches VFs to one Pod; claims reserved for a PodGroup, a Node or another kind are unsupported — use a ResourceClaimTemplate per Pod',
    });
  }
  if (consumer.name === '' || consumer.uid === '') {
    return fail('InvalidClaimReservation', `the Pod reservation ${describeConsumer(consumer)} lacks ${consumer.name === '' ? 'a name' : 'a UID'}`, {
      object: claimObject(claim, 'status.reservedFor'),
      remedy: 'the scheduler writes the Pod name and UID into status.reservedFor; do not edit reservations by hand',
    });
  }
  return ok({ namespace: claim.namespace, name: consumer.name, uid: consumer.uid });
}

/**
 * §8.1 step 4 and §6.1 steps 1–2 on a claim read again after the driver verified it: still the same
 * claim (not replaced under its name), still allocated and reserved for exactly one Pod, and that Pod is
 * still `podUID`. `at` names the claim when what was read cannot be decoded. Returns the reservation.
 */
export function stillReservedFor(liveClaim: unknown, expected: { readonly claimUID: string; readonly podUID: string }, at: ObjectRef): Result<ReservedPod> {
  const claim = parseConsumerClaim(liveClaim, at);
  if (!claim.ok) return claim;
  if (claim.value.uid !== expected.claimUID) {
    return fail('ObjectReplaced', `the claim is now UID ${claim.value.uid}, not UID ${expected.claimUID}`, { object: claimObject(claim.value) });
  }
  const reserved = reservedPodOf(claim.value);
  if (!reserved.ok) return reserved;
  if (reserved.value.uid !== expected.podUID) {
    return fail(
      'ConsumerMismatch',
      `the claim is now reserved for Pod ${reserved.value.namespace}/${reserved.value.name} (${reserved.value.uid}), not Pod UID ${expected.podUID}`,
      {
        object: claimObject(claim.value, 'status.reservedFor'),
        remedy: 'nothing more is written for the Pod UID it was prepared for; the kubelet releases it there and prepares it for the Pod it is reserved for now',
      },
    );
  }
  return reserved;
}
