import { ATTACHMENT_PROTECTION_FINALIZER, SriovDraError } from '@sriov-dra/contract';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type FinalizerRemoval,
  type KubeClient,
  type KubeObject,
  backoffDelay,
  conflictBackoff,
  isApiError,
  isTransient,
  removeFinalizer,
  resourceTypes,
} from '@sriov-dra/k8s';
import { z } from 'zod';

/** The exact shadow a binding owns, as its checkpoint records it (UID observed at creation or adoption). */
export interface OwnedShadow {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface ShadowDeletion {
  readonly outcome: 'terminating' | 'gone';
  /** The Terminating shadow as the DELETE answered it: the finalizer removal can be tested against it without a read. */
  readonly current?: KubeObject;
}

const kubeObjectSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string(), uid: z.string(), resourceVersion: z.string(), finalizers: z.array(z.string()).optional() }),
});

/** DELETEs sent in all when answers are lost or the API server is briefly unavailable. */
const MAX_DELETE_ATTEMPTS = 3;

/**
 * Asks for the owned shadow's deletion (§8.4 step 2), with a UID precondition so an object someone
 * recreated under the same name is never deleted in its place. The protection finalizer keeps the
 * shadow Terminating — readable by Multus's DEL path — until the release is durable. Returns whether the
 * shadow still exists (Terminating) or is already gone. A DELETE whose answer was lost is simply sent
 * again: for a Terminating object it answers the object, for a removed one NotFound.
 */
export async function requestShadowDeletion(client: KubeClient, shadow: OwnedShadow, signal?: AbortSignal): Promise<ShadowDeletion> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await deleteOnce(client, shadow, signal);
    } catch (error) {
      if (!isTransient(error) || attempt >= MAX_DELETE_ATTEMPTS) throw error;
      await delay(backoffDelay(conflictBackoff, attempt), undefined, { signal });
    }
  }
}

async function deleteOnce(client: KubeClient, shadow: OwnedShadow, signal?: AbortSignal): Promise<ShadowDeletion> {
  try {
    const answered = await client.delete(resourceTypes.networkAttachmentDefinition, shadow, { uid: shadow.uid, signal });
    // A deletion a finalizer holds answers with the Terminating object; anything else (a Status, or the
    // object as it was when removed at once) means it is already gone.
    const answer = kubeObjectSchema.safeParse(answered);
    const held = answer.success && answer.data.metadata.uid === shadow.uid && (answer.data.metadata.finalizers ?? []).length > 0;
    return held ? { outcome: 'terminating', current: answer.data } : { outcome: 'gone' };
  } catch (error) {
    if (isApiError(error, 'NotFound')) return { outcome: 'gone' };
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
 * re-read. Only the finalizer goes; the deletion was requested earlier. `verify` sees every state the
 * removal is built on — the object as last seen (`current`, e.g. the DELETE's answer) and each re-read
 * after another writer's change — and throws to refuse one that is no longer the verified shadow.
 */
export function releaseShadowFinalizer(
  client: KubeClient,
  shadow: OwnedShadow,
  options: { readonly signal?: AbortSignal; readonly current?: KubeObject; readonly verify?: (live: KubeObject) => void } = {},
): Promise<FinalizerRemoval> {
  return removeFinalizer(client, resourceTypes.networkAttachmentDefinition, shadow, ATTACHMENT_PROTECTION_FINALIZER, options);
}
