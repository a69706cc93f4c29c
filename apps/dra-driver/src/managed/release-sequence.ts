import { SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { type FinalizerRemoval, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import type { ClaimRef } from '../kubelet/claim-preparer.ts';
import { isAttached, managedBindingsOf, withPhase, withShadowUIDs } from './binding-records.ts';
import type { BindingStore } from './forward-sequence.ts';
import { publishPodSelections } from './pod-selections.ts';
import { recordedShadow } from './recorded-shadow.ts';
import { type OwnedShadow, releaseShadowFinalizer, requestShadowDeletion } from './shadow-release.ts';
import { type ShadowObject, verifyShadow } from './shadow-verification.ts';

/** The host half of a release, done by the device layer (§8.4 steps 4–6 and 9). */
export interface HostRelease {
  releaseManagedHost(ref: ClaimRef, signal: AbortSignal): Promise<void>;
  forgetReleasedClaim(ref: ClaimRef): Promise<void>;
}

export interface ReleaseOutcome {
  /** What became of each owned shadow's deletion request; absent shadows were never created. */
  readonly shadows: readonly ('terminating' | 'gone' | 'not ours')[];
  readonly selectionsRemoved: boolean;
  readonly finalizers: readonly FinalizerRemoval[];
}

/**
 * The shadow a binding owns. A binding whose Create response was lost records no UID; the object under
 * its name is adopted only if it is exactly the shadow its record describes (deleting or not), so a
 * release never deletes or unprotects an object it did not create.
 */
async function ownedShadowOf(store: BindingStore, binding: ManagedBinding, signal: AbortSignal): Promise<OwnedShadow | undefined> {
  if (binding.shadow.uid !== '') return binding.shadow;
  let found: ShadowObject;
  try {
    found = await store.client.get<ShadowObject>(resourceTypes.networkAttachmentDefinition, binding.shadow, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
  const desired = recordedShadow(binding);
  if (!desired.ok) throw desired.error;
  return verifyShadow(found, desired.value, { releasing: true }).ok ? { ...binding.shadow, uid: found.metadata.uid } : undefined;
}

/**
 * NodeUnprepareResources of a managed claim (§8.4), resumable from any step: Deleting persisted first;
 * each owned shadow's deletion requested with a UID precondition (its finalizer keeps it readable for
 * Multus's DEL); this claim's selections and registry entries removed from the Pod and no others; the
 * host released and ReleaseComplete persisted by the device layer; then the owned finalizers removed and
 * the record forgotten, last. A retry after ReleaseComplete repeats only the API steps, which are no-ops
 * once done.
 */
export async function runReleaseSequence(store: BindingStore, host: HostRelease, ref: ClaimRef, signal: AbortSignal): Promise<ReleaseOutcome> {
  const { checkpoint, client } = store;
  let record = checkpoint.get(ref.uid);
  if (record === undefined) return { shadows: [], selectionsRemoved: false, finalizers: [] };
  if (managedBindingsOf(record).some(isAttached)) {
    record = (await checkpoint.updateClaim(ref.uid, (current) => withPhase(current, ['Pending', 'Ready'], 'Deleting'))) ?? record;
  }

  const shadows: ReleaseOutcome['shadows'][number][] = [];
  const terminating = new Map<string, KubeObject>();
  let selectionsRemoved = false;
  if (managedBindingsOf(record).some((binding) => binding.phase === 'Deleting')) {
    const adopted = new Map<string, string>();
    for (const binding of managedBindingsOf(record)) {
      signal.throwIfAborted();
      const owned = await ownedShadowOf(store, binding, signal);
      if (owned === undefined) continue;
      if (owned.uid !== binding.shadow.uid) adopted.set(binding.attachmentID, owned.uid);
      try {
        const deletion = await requestShadowDeletion(client, owned, signal);
        shadows.push(deletion.outcome);
        if (deletion.current !== undefined) terminating.set(binding.attachmentID, deletion.current);
      } catch (error) {
        // Someone else's object holds the name now: ours is gone, and theirs is not ours to touch.
        if (!(isSriovDraError(error) && error.code === 'ShadowConflict')) throw error;
        shadows.push('not ours');
      }
    }
    if (adopted.size > 0) record = (await checkpoint.updateClaim(ref.uid, (current) => withShadowUIDs(current, adopted))) ?? record;
    selectionsRemoved = await removeClaimSelections(store, record.pod, ref.uid, signal);
    await host.releaseManagedHost(ref, signal);
    record = checkpoint.get(ref.uid) ?? record;
  }

  const finalizers: FinalizerRemoval[] = [];
  for (const binding of managedBindingsOf(record)) {
    if (binding.phase !== 'ReleaseComplete') {
      throw new SriovDraError('UnsupportedDeviceState', `attachment ${binding.attachmentID} is ${binding.phase}, not ReleaseComplete`, {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
      });
    }
    if (binding.shadow.uid === '') continue;
    try {
      finalizers.push(await releaseShadowFinalizer(client, binding.shadow, signal, terminating.get(binding.attachmentID)));
    } catch (error) {
      // The name was reused by another object: the finalizer obligation died with ours.
      if (!(isSriovDraError(error) && error.code === 'ObjectReplaced')) throw error;
      finalizers.push('gone');
    }
  }
  await host.forgetReleasedClaim(ref);
  return { shadows, selectionsRemoved, finalizers };
}

/** §8.4 step 3: only this claim's entries go; a Pod already gone or replaced has nothing to remove. */
async function removeClaimSelections(
  store: BindingStore,
  pod: { readonly namespace: string; readonly name: string; readonly uid: string },
  claimUID: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const write = await publishPodSelections(store.client, { ...pod, nodeName: store.nodeName }, { desired: [], releasedClaims: [claimUID] }, { signal });
    return write.written;
  } catch (error) {
    if (isApiError(error, 'NotFound') || (isSriovDraError(error) && error.code === 'ObjectReplaced')) return false;
    throw error;
  }
}
