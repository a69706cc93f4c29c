import { ATTACHMENT_PROTECTION_FINALIZER, MANAGED_BY_VALUE, annotations, labels, parseBindingAnnotation } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

/** A binding this node's checkpoint holds: the identity a shadow must carry to be accounted for. */
export interface CheckpointedBinding {
  readonly attachmentID: string;
  readonly claimUID: string;
  readonly podUID: string;
  readonly shadow: { readonly namespace: string; readonly name: string; readonly uid: string };
}

/** A driver-managed NAD on this node that no checkpointed binding accounts for. */
export interface Orphan {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** Whether this driver's protection finalizer still holds it (it stays until an administrator acts). */
  readonly protectedByFinalizer: boolean;
  readonly terminating: boolean;
  /** Why it is unaccounted for. */
  readonly reason: 'no-checkpoint-record' | 'identity-mismatch' | 'unreadable-binding';
  readonly podUID?: string;
  readonly claimUID?: string;
  readonly attachmentID?: string;
}

/**
 * The shadows of this node that no checkpoint record accounts for (§8.5): listed across all namespaces
 * by the managed-by and node-UID labels (a checkpoint lost with its namespaces would hide them from a
 * namespace-by-namespace look), then matched by full identity — attachment, Pod, claim, shadow UID — never
 * by label or name alone. Pure report: an orphan is never finalized or deleted here; its finalizer is an
 * obligation only an administrator may waive. Other nodes' objects are never returned.
 */
export function findOrphans(shadows: readonly KubeObject[], checkpoint: readonly CheckpointedBinding[], nodeUID: string): Orphan[] {
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
    if (!matches) orphans.push({ ...base, ...identity, reason: 'identity-mismatch' });
  }
  return orphans;
}

/** Lists this node's managed NADs in every namespace (one paged LIST with both label selectors). */
export async function listNodeShadows(client: KubeClient, nodeUID: string, signal?: AbortSignal): Promise<KubeObject[]> {
  const labelSelector = `${labels.managedBy}=${MANAGED_BY_VALUE},${labels.nodeUID}=${nodeUID}`;
  const items: KubeObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.list(resourceTypes.networkAttachmentDefinition, {
      labelSelector,
      limit: 500,
      ...(token === undefined ? {} : { continue: token }),
      signal,
    });
    items.push(...page.items);
    token = page.metadata.continue === '' ? undefined : page.metadata.continue;
  } while (token !== undefined);
  return items;
}
