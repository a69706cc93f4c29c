import { type KubeClient, readResourceClaim } from '@sriov-dra/k8s';
import { stillReservedFor } from './claim-reservation.ts';

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
  const reserved = stillReservedFor(await readResourceClaim(client, claim.namespace, claim.name, signal), { claimUID: claim.uid, podUID }, at);
  if (!reserved.ok) throw reserved.error;
}
