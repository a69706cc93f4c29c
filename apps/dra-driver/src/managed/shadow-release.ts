import { ATTACHMENT_PROTECTION_FINALIZER, SriovDraError } from '@sriov-dra/contract';
import { type FinalizerRemoval, type KubeClient, isApiError, removeFinalizer, resourceTypes } from '@sriov-dra/k8s';

/** The exact shadow a binding owns, as its checkpoint records it (UID observed at creation or adoption). */
export interface OwnedShadow {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * Asks for the owned shadow's deletion (§8.4 step 2), with a UID precondition so an object someone
 * recreated under the same name is never deleted in its place. The protection finalizer keeps the
 * shadow Terminating — readable by Multus's DEL path — until the release is durable. Returns whether the
 * shadow still exists (Terminating) or is already gone.
 */
export async function requestShadowDeletion(client: KubeClient, shadow: OwnedShadow, signal?: AbortSignal): Promise<'terminating' | 'gone'> {
  try {
    await client.delete(resourceTypes.networkAttachmentDefinition, shadow, { uid: shadow.uid, signal });
    return 'terminating';
  } catch (error) {
    if (isApiError(error, 'NotFound')) return 'gone';
    // The precondition failed: the name now belongs to another object, which is not this binding's to delete.
    if (isApiError(error, 'Conflict')) {
      throw new SriovDraError(
        'ShadowConflict',
        `the object named like the shadow is not the one this binding created (UID ${shadow.uid}); it is left as it is`,
        {
          object: { kind: 'NetworkAttachmentDefinition', namespace: shadow.namespace, name: shadow.name, uid: shadow.uid },
          cause: error,
        },
      );
    }
    throw error;
  }
}

/**
 * Removes this driver's protection finalizer from the owned shadow (§8.4 step 7) once ReleaseComplete is
 * durable: UID- and resourceVersion-checked, other finalizers kept, a lost response settled by the
 * re-read. Only the finalizer goes; the deletion was requested earlier.
 */
export function releaseShadowFinalizer(client: KubeClient, shadow: OwnedShadow, signal?: AbortSignal): Promise<FinalizerRemoval> {
  return removeFinalizer(client, resourceTypes.networkAttachmentDefinition, shadow, ATTACHMENT_PROTECTION_FINALIZER, { signal });
}
