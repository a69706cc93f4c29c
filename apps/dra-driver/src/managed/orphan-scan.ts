import { ATTACHMENT_PROTECTION_FINALIZER, MANAGED_BY_VALUE, annotations, labels, parseBindingAnnotation } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { ownedShadow } from './owned-shadow.ts';

/** A driver-managed NAD on this node that no checkpointed binding accounts for. */
export interface Orphan {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** Whether this driver's protection finalizer still holds it (it stays until an administrator acts). */
  readonly protectedByFinalizer: boolean;
  readonly terminating: boolean;
  /**
   * Why it is unaccounted for. content-mismatch: its binding names a checkpointed attachment, but the
   * object is not the shadow that record rebuilds (edited by hand, or owned by another Pod); a release of
   * that claim refuses it with ShadowConflict and waits, record kept.
   */
  readonly reason: 'no-checkpoint-record' | 'identity-mismatch' | 'content-mismatch' | 'unreadable-binding';
  readonly podUID?: string;
  readonly claimUID?: string;
  readonly attachmentID?: string;
  /** For content-mismatch: the first difference from the record. */
  readonly difference?: string;
}

/**
 * The shadows of this node that no checkpoint record accounts for (§8.5): listed across all namespaces
 * by the managed-by and node-UID labels (a checkpoint lost with its namespaces would hide them from a
 * namespace-by-namespace look), then matched by full identity — attachment, Pod, claim, shadow UID — and
 * by the content the record rebuilds, never by label or name alone. Pure report: an orphan is never
 * finalized or deleted here; its finalizer is an obligation only an administrator may waive. Other nodes'
 * objects are never returned.
 */
export function findOrphans(shadows: readonly KubeObject[], checkpoint: readonly ManagedBinding[], nodeUID: string): Orphan[] {
  const byAttachment = new Map(checkpoint.map((binding) => [binding.attachmentID, binding]));
  const orphans: Orphan[] = [];
  for (const shadow of shadows) {
    const meta = shadow.metadata;
    if (meta.labels?.[labels.managedBy] !== MANAGED_BY_VALUE || meta.labels[labels.nodeUID] !== nodeUID) continue;
    const base = {
      namespace: meta.namespace ?? '',
      name: meta.name,
      uid: meta.uid,
      protectedByFinalizer: (meta.finalizers ?? []).includes(ATTACHMENT_PROTECTION_FINALIZER),
      terminating: meta.deletionTimestamp !== undefined,
    };
    const raw = meta.annotations?.[annotations.binding];
    const binding = raw === undefined ? undefined : parseBindingAnnotation(raw);
    if (binding === undefined || !binding.ok) {
      orphans.push({ ...base, reason: 'unreadable-binding' });
      continue;
    }
    const { attachmentID, podUID, claimUID } = binding.value;
    const recorded = byAttachment.get(attachmentID);
    const identity = { podUID, claimUID, attachmentID };
    if (recorded === undefined) {
      orphans.push({ ...base, ...identity, reason: 'no-checkpoint-record' });
      continue;
    }
    const matches =
      recorded.podUID === podUID &&
      recorded.claimUID === claimUID &&
      recorded.shadow.namespace === base.namespace &&
      recorded.shadow.name === base.name &&
      (recorded.shadow.uid === '' || recorded.shadow.uid === base.uid);
    if (!matches) {
      orphans.push({ ...base, ...identity, reason: 'identity-mismatch' });
      continue;
    }
    const owned = ownedShadow(recorded, shadow);
    if (!owned.ok) orphans.push({ ...base, ...identity, reason: 'content-mismatch', difference: owned.error.detail });
  }
  return orphans;
}

/** The label selector of this node's managed NADs: managed by this driver, on this node UID. */
export function nodeShadowSelector(nodeUID: string): string {
  return `${labels.managedBy}=${MANAGED_BY_VALUE},${labels.nodeUID}=${nodeUID}`;
}

/** Lists this node's managed NADs in every namespace (one paged LIST with both label selectors). */
export function listNodeShadows(client: KubeClient, nodeUID: string, signal?: AbortSignal): Promise<KubeObject[]> {
  return client.listAll(resourceTypes.networkAttachmentDefinition, { labelSelector: nodeShadowSelector(nodeUID), ...(signal === undefined ? {} : { signal }) });
}
