import { type Result, SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, readResourceClaim } from '@sriov-dra/k8s';
import { claimObject, reservedPodOf } from './claim-reservation.ts';
import { parseConsumerClaim } from './consumer-objects.ts';

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * §8.1 step 4: a Pod's selections are written only while the claim is still reserved for that Pod. The
 * forward sequence verified it when it resolved the claim; a write retried after another writer changed
 * the Pod verifies it again on a live read, so a claim handed to another consumer meanwhile never puts
 * its VF into this Pod's networks.
 */
export async function verifyClaimStillReserved(
  client: KubeClient,
  claim: { readonly namespace: string; readonly name: string; readonly uid: string },
  podUID: string,
  signal?: AbortSignal,
): Promise<void> {
  const at = { kind: 'ResourceClaim', namespace: claim.namespace, name: claim.name, uid: claim.uid };
  const live = unwrap(parseConsumerClaim(await readResourceClaim(client, claim.namespace, claim.name, signal), at));
  if (live.uid !== claim.uid) throw new SriovDraError('ObjectReplaced', `the claim is now UID ${live.uid}`, { object: at });
  const reserved = unwrap(reservedPodOf(live));
  if (reserved.uid !== podUID) {
    throw new SriovDraError(
      'ConsumerMismatch',
      `the claim is now reserved for Pod ${reserved.namespace}/${reserved.name} (${reserved.uid}), not Pod UID ${podUID}`,
      {
        object: claimObject(live, 'status.reservedFor'),
        remedy: 'nothing was written to the Pod; the kubelet releases the claim from the Pod it was prepared for',
      },
    );
  }
}
