import { SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { type FinalizerRemoval, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import type { ClaimRef } from '../kubelet/claim-preparer.ts';
import { isAttached, managedBindingsOf, withPhase, withShadowUIDs } from './binding-records.ts';
import type { BindingStore } from './forward-sequence.ts';
import { publishPodSelections } from './pod-selections.ts';
import { ownedShadow } from './owned-shadow.ts';
import { type OwnedShadow, releaseShadowFinalizer, requestShadowDeletion } from './shadow-release.ts';
import type { ShadowObject } from './shadow-verification.ts';

/** The host half of a release, done by the device layer (§8.4 steps 4–6 and 9). */
export interface HostRelease {
  releaseManagedHost(ref: ClaimRef, signal: AbortSignal): Promise<void>;
  forgetReleasedClaim(ref: ClaimRef): Promise<void>;
}

export interface ReleaseOutcome {
  /** What became of each owned shadow's deletion request; absent shadows were never created. */
  readonly shadows: readonly ('terminating' | 'gone')[];
  readonly selectionsRemoved: boolean;
  readonly finalizers: readonly FinalizerRemoval[];
}

/** An owned shadow as step 1 found and verified it. */
interface VerifiedShadow {
  readonly owned: OwnedShadow;
  readonly live: ShadowObject;
}

/**
 * §8.4 step 1: the shadow a binding owns, read under its name and verified against the record before the
 * release asks anything of it; undefined when there is none (never created, or already removed). A lost
 * Create response's empty UID is adopted only for an exact match. Anything else — a replacement UID, a
 * Pod owner reference to another Pod, edited content — is thrown as ShadowConflict: no object it cannot
 * prove it owns is deleted or unprotected, and its own shadow is never forgotten while still protected.
 */
async function verifiedShadowOf(store: BindingStore, binding: ManagedBinding, signal: AbortSignal): Promise<VerifiedShadow | undefined> {
  let live: ShadowObject;
  try {
    live = await store.client.get<ShadowObject>(resourceTypes.networkAttachmentDefinition, binding.shadow, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
  const owned = ownedShadow(binding, live);
  if (!owned.ok) throw owned.error;
  return { owned: owned.value, live };
}

/** Throws when the object a finalizer removal is about to be built on is no longer the binding's shadow. */
const stillOwned =
  (binding: ManagedBinding) =>
  (live: KubeObject): void => {
    const owned = ownedShadow(binding, live);
    if (!owned.ok) throw owned.error;
  };

/**
 * NodeUnprepareResources of a managed claim (§8.4), resumable from any step: Deleting persisted first;
 * every owned shadow verified before any is touched; each one's deletion requested with a UID
 * precondition (its finalizer keeps it readable for Multus's DEL); this claim's selections and registry
 * entries removed from the Pod and no others; the host released and ReleaseComplete persisted by the
 * device layer; then the owned finalizers removed, each from a state verified again, and the record
 * forgotten, last. A retry after ReleaseComplete repeats only the API steps, which are no-ops once done.
 * A shadow that fails verification stops the release where it is, with the record kept.
 */
export async function runReleaseSequence(store: BindingStore, host: HostRelease, ref: ClaimRef, signal: AbortSignal): Promise<ReleaseOutcome> {
  const { checkpoint, client } = store;
  let record = checkpoint.get(ref.uid);
  if (record === undefined) return { shadows: [], selectionsRemoved: false, finalizers: [] };
  if (managedBindingsOf(record).some(isAttached)) {
    record = (await checkpoint.updateClaim(ref.uid, (current) => withPhase(current, ['Pending', 'Ready'], 'Deleting'))) ?? record;
  }

  const verified = new Map<string, VerifiedShadow>();
  for (const binding of managedBindingsOf(record)) {
    signal.throwIfAborted();
    // Without a UID by ReleaseComplete, its release found no shadow: whatever holds the name since is not its.
    if (binding.phase === 'ReleaseComplete' && binding.shadow.uid === '') continue;
    const found = await verifiedShadowOf(store, binding, signal);
    if (found !== undefined) verified.set(binding.attachmentID, found);
  }

  const shadows: ReleaseOutcome['shadows'][number][] = [];
  /** The state each shadow's finalizer removal is first tested against: the DELETE's answer, or step 1's read. */
  const lastSeen = new Map<string, KubeObject | 'gone'>([...verified].map(([attachmentID, found]) => [attachmentID, found.live]));
  let selectionsRemoved = false;
  if (managedBindingsOf(record).some((binding) => binding.phase === 'Deleting')) {
    const adopted = new Map<string, string>();
    for (const binding of managedBindingsOf(record)) {
      signal.throwIfAborted();
      const found = verified.get(binding.attachmentID);
      if (found === undefined) continue;
      if (found.owned.uid !== binding.shadow.uid) adopted.set(binding.attachmentID, found.owned.uid);
      const deletion = await requestShadowDeletion(client, found.owned, signal);
      shadows.push(deletion.outcome);
      lastSeen.set(binding.attachmentID, deletion.current ?? 'gone');
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
    const seen = lastSeen.get(binding.attachmentID) ?? 'gone';
    if (seen === 'gone') {
      finalizers.push('gone');
      continue;
    }
    try {
      finalizers.push(await releaseShadowFinalizer(client, binding.shadow, { signal, current: seen, verify: stillOwned(binding) }));
    } catch (error) {
      // Our shadow, verified above, was removed and the name reused since: the finalizer obligation died with it.
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
