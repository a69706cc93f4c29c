import { type Result, fail } from '@sriov-dra/contract';
import { claimObject, reservedPodOf } from './claim-reservation.ts';
import { type ConsumerPod, parseConsumerClaim, parseConsumerPod } from './consumer-objects.ts';
import { type ResolvePurpose, checkPodEligibility, podObject, verifyReservedPod } from './consumer-pod.ts';

/** What a prepare verified before it waited for its Pod's lock. */
export interface VerifiedConsumer {
  readonly claimUID: string;
  readonly podUID: string;
  /** The node this driver serves. */
  readonly nodeName: string;
}

/**
 * What a prepare that had to wait for its Pod's lock verifies again before any write (§6.1 steps 2–4):
 * while another claim of the Pod held the lock, the claim may have been replaced or reserved for another
 * consumer, and the Pod may have started terminating. `liveClaim` is read after the wait; `pod` is the
 * Pod read after the wait, or as the lock's last holder wrote it (undefined: it does not exist). The Node
 * is not re-read: its identity is watched for the whole process. Pure.
 */
export function recheckConsumer(liveClaim: unknown, pod: unknown, verified: VerifiedConsumer, purpose: ResolvePurpose): Result<void> {
  const claim = parseConsumerClaim(liveClaim, { kind: 'ResourceClaim', uid: verified.claimUID });
  if (!claim.ok) return claim;
  if (claim.value.uid !== verified.claimUID) {
    return fail('ObjectReplaced', `the claim is now UID ${claim.value.uid}, the prepare was for UID ${verified.claimUID}`, {
      object: claimObject(claim.value),
    });
  }
  const reserved = reservedPodOf(claim.value);
  if (!reserved.ok) return reserved;
  if (reserved.value.uid !== verified.podUID) {
    return fail('ConsumerMismatch', `the claim is now reserved for Pod ${reserved.value.name} (${reserved.value.uid}), not Pod UID ${verified.podUID}`, {
      object: claimObject(claim.value, 'status.reservedFor'),
      remedy: 'the kubelet prepares the claim again for the Pod it is reserved for now',
    });
  }
  let consumer: ConsumerPod | undefined;
  if (pod !== undefined) {
    const parsed = parseConsumerPod(pod, podObject(reserved.value));
    if (!parsed.ok) return parsed;
    consumer = parsed.value;
  }
  const verifiedPod = verifyReservedPod(reserved.value, consumer, verified.nodeName);
  if (!verifiedPod.ok) return verifiedPod;
  return checkPodEligibility(verifiedPod.value, purpose);
}
