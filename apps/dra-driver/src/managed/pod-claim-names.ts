import { type Result, fail, ok } from '@sriov-dra/contract';
import type { ConsumerPod } from './consumer-objects.ts';
import { podObject } from './consumer-pod.ts';

/** What one pod.spec.resourceClaims entry resolves to. */
export type PodClaimName =
  | {
      readonly kind: 'claim';
      /** The entry's name inside the Pod. */
      readonly podClaimName: string;
      readonly claimName: string;
      /** A claim generated from a template must be controlled by the Pod (resourceclaim.IsForPod). */
      readonly mustCheckOwner: boolean;
    }
  /** The resource claim controller decided not to create the claim; the entry is ignored. */
  | { readonly kind: 'absent'; readonly podClaimName: string };

/**
 * §6.1 step 5, the names: every pod.spec.resourceClaims entry resolved as Kubernetes v1.36
 * k8s.io/dynamic-resource-allocation/resourceclaim.Name does. A direct resourceClaimName is the claim; a
 * resourceClaimTemplateName is resolved through the status entry of the same name, which holds the
 * generated claim's name, or no name when the claim was intentionally not created. A template entry
 * without a status entry means the claim was not created yet, which is an error, as is an entry with
 * neither source (a Pod API newer than this driver). A direct claim never needs a status entry, so a Pod
 * with only direct claims and an empty status list resolves fully.
 */
export function podClaimNames(pod: ConsumerPod): Result<readonly PodClaimName[]> {
  const names: PodClaimName[] = [];
  for (const entry of pod.resourceClaims) {
    if (entry.resourceClaimName !== undefined) {
      names.push({ kind: 'claim', podClaimName: entry.name, claimName: entry.resourceClaimName, mustCheckOwner: false });
      continue;
    }
    if (entry.resourceClaimTemplateName === undefined) {
      return fail('InvalidApiObject', `spec.resourceClaims entry "${entry.name}" sets neither resourceClaimName nor resourceClaimTemplateName`, {
        object: podObject(pod, 'spec.resourceClaims'),
        remedy: 'this driver knows only those two claim sources; a Pod API that adds another needs a driver release that supports it',
      });
    }
    const status = pod.resourceClaimStatuses.find((candidate) => candidate.name === entry.name);
    if (status === undefined) {
      return fail(
        'InvalidApiObject',
        `the ResourceClaim for entry "${entry.name}" (template ${entry.resourceClaimTemplateName}) is not created yet: status.resourceClaimStatuses has no entry for it`,
        {
          object: podObject(pod, 'status.resourceClaimStatuses'),
          remedy: 'the resource claim controller records the generated claim in the Pod status; the kubelet retries prepare once it has',
        },
      );
    }
    names.push(
      status.resourceClaimName === undefined
        ? { kind: 'absent', podClaimName: entry.name }
        : { kind: 'claim', podClaimName: entry.name, claimName: status.resourceClaimName, mustCheckOwner: true },
    );
  }
  return ok(names);
}
