import { ATTACHMENT_PROTECTION_FINALIZER, SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, isApiError, patchGuarded, pointer, resourceTypes } from '@sriov-dra/k8s';
import { type DesiredShadow, type ShadowObject, verifyShadow } from './shadow-verification.ts';

export interface EnsuredShadow {
  readonly uid: string;
  /** created: by this call; adopted: found exact (a lost response, a retry, a restart); repaired: adopted and its finalizer restored. */
  readonly outcome: 'created' | 'adopted' | 'repaired';
}

/** Creates lost to an unknown outcome that are retried after the re-read found nothing. */
const MAX_CREATE_ATTEMPTS = 3;

/**
 * Ensures one binding's shadow NAD exists exactly as rendered (§8.1 step 3, §8.3): one Create carrying the
 * owner reference, finalizer, labels and binding annotation; on AlreadyExists or a response lost in
 * flight, a GET and a full verification, adopting only an exact match. A foreign or altered object is an
 * error, never overwritten; a shadow being deleted is never recreated. Forbidden and other API errors
 * reach the caller unchanged (typed), for the checkpointed binding to be retried forward.
 */
export async function ensureShadow(client: KubeClient, desired: DesiredShadow, signal?: AbortSignal): Promise<EnsuredShadow> {
  const at = { namespace: desired.metadata.namespace, name: desired.metadata.name };
  for (let attempt = 1; ; attempt += 1) {
    try {
      const created = await client.create<ShadowObject>(resourceTypes.networkAttachmentDefinition, desired as unknown as Record<string, unknown>, {
        namespace: at.namespace,
        signal,
      });
      return { uid: created.metadata.uid, outcome: 'created' };
    } catch (error) {
      const unknownOutcome = isApiError(error) && (error.outcomeUnknown || error.kind === 'Timeout');
      if (!isApiError(error, 'AlreadyExists') && !unknownOutcome) throw error;
    }
    let found: ShadowObject;
    try {
      found = await client.get<ShadowObject>(resourceTypes.networkAttachmentDefinition, at, signal);
    } catch (error) {
      // The lost Create never happened (or its object is already gone): create again, a bounded number of times.
      if (isApiError(error, 'NotFound') && attempt < MAX_CREATE_ATTEMPTS) continue;
      throw error;
    }
    const verdict = verifyShadow(found, desired);
    if (!verdict.ok) throw verdict.error;
    if (verdict.value === 'none') return { uid: found.metadata.uid, outcome: 'adopted' };
    await restoreFinalizer(client, found, signal);
    return { uid: found.metadata.uid, outcome: 'repaired' };
  }
}

/**
 * Checks the shadow a binding recorded by UID (§8.3, the already-prepared path and repair): one GET. The
 * exact object is present (its stripped finalizer restored), or missing — truly NotFound, for the caller
 * to forget the UID durably before creating it again. An object under the name with another UID is a
 * conflict even if its content matches: the recorded one is gone and this one is nobody's proof.
 */
export async function checkRecordedShadow(
  client: KubeClient,
  desired: DesiredShadow,
  uid: string,
  signal?: AbortSignal,
): Promise<'present' | 'repaired' | 'missing'> {
  const at = { namespace: desired.metadata.namespace, name: desired.metadata.name };
  let found: ShadowObject;
  try {
    found = await client.get<ShadowObject>(resourceTypes.networkAttachmentDefinition, at, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return 'missing';
    throw error;
  }
  if (found.metadata.uid !== uid) {
    throw new SriovDraError('ShadowConflict', `the binding recorded shadow UID ${uid}; the object under its name is UID ${found.metadata.uid}`, {
      object: { kind: 'NetworkAttachmentDefinition', ...at, uid: found.metadata.uid },
      remedy: 'inspect the object with sriov-dra inspect pod; release the workload normally rather than deleting or editing the object',
    });
  }
  const verdict = verifyShadow(found, desired);
  if (!verdict.ok) throw verdict.error;
  if (verdict.value === 'none') return 'present';
  await restoreFinalizer(client, found, signal);
  return 'repaired';
}

/** Adds the protection finalizer back to an exact live shadow, guarded by its UID and resourceVersion. */
async function restoreFinalizer(client: KubeClient, found: ShadowObject, signal?: AbortSignal): Promise<void> {
  await patchGuarded<ShadowObject>(
    client,
    resourceTypes.networkAttachmentDefinition,
    { namespace: found.metadata.namespace, name: found.metadata.name, uid: found.metadata.uid },
    (live) => {
      if (live.metadata.deletionTimestamp !== undefined) {
        throw new SriovDraError('ShadowDeletionPending', 'the shadow started deleting before its finalizer could be restored', {
          object: { kind: 'NetworkAttachmentDefinition', namespace: found.metadata.namespace, name: found.metadata.name, uid: found.metadata.uid },
        });
      }
      const finalizers = live.metadata.finalizers ?? [];
      if (finalizers.includes(ATTACHMENT_PROTECTION_FINALIZER)) return [];
      return finalizers.length === 0
        ? [{ op: 'add', path: pointer('metadata', 'finalizers'), value: [ATTACHMENT_PROTECTION_FINALIZER] }]
        : [{ op: 'add', path: `${pointer('metadata', 'finalizers')}/-`, value: ATTACHMENT_PROTECTION_FINALIZER }];
    },
    { signal, current: found },
  );
}
