import type { Result } from '@sriov-dra/contract';
import { stillReservedFor } from './claim-reservation.ts';
import { type ConsumerPod, parseConsumerPod } from './consumer-objects.ts';
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
  const reserved = stillReservedFor(liveClaim, verified, { kind: 'ResourceClaim', uid: verified.claimUID });
  if (!reserved.ok) return reserved;
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
