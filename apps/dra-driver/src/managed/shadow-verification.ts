import { ATTACHMENT_PROTECTION_FINALIZER, type Result, annotations, fail, ok } from '@sriov-dra/contract';
import type { KubeObject } from '@sriov-dra/k8s';

/** The shadow NAD as buildShadowNad makes it: what this driver would create. */
export interface DesiredShadow {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly ownerReferences: readonly { readonly kind: string; readonly name: string; readonly uid: string }[];
  };
  readonly spec: { readonly config: string };
}

export type ShadowObject = KubeObject & { spec?: { config?: unknown } };

/** What a found shadow lacks that this driver can restore itself (§8.3): nothing else is ever rewritten. */
export type ShadowRepair = 'none' | 'restore-finalizer';

/**
 * Whether an existing object under the shadow's name is exactly the shadow this driver would create —
 * same binding annotation (attachment, Pod, claim, node, source, VF, config hash), same labels, the Pod
 * owner reference (and no other Pod's) without blockOwnerDeletion, the same config bytes — so a lost Create response or a
 * restart can adopt it. Anything else under that name is someone else's object (or an edited one) and
 * is never overwritten: ShadowConflict names the first difference. A shadow being deleted cannot serve a
 * Pod and is never recreated while it still exists: ShadowDeletionPending, except to a release. A missing protection finalizer
 * on an otherwise exact shadow is the one thing restored.
 */
export function verifyShadow(found: ShadowObject, desired: DesiredShadow, options: { readonly releasing?: boolean } = {}): Result<ShadowRepair> {
  const object = { kind: 'NetworkAttachmentDefinition', namespace: desired.metadata.namespace, name: desired.metadata.name, uid: found.metadata.uid };
  const conflict = (what: string): Result<never> =>
    fail('ShadowConflict', `${what}; the object under the shadow's name is not this binding's shadow and is left as it is`, { object });
  // A release adopts its own shadow whatever its state: deleting is where a release wants it.
  if (found.metadata.deletionTimestamp !== undefined && options.releasing !== true) {
    return fail('ShadowDeletionPending', `the shadow is being deleted (since ${found.metadata.deletionTimestamp}); it is not recreated while it exists`, {
      object,
    });
  }
  const binding = annotations.binding;
  if (found.metadata.annotations?.[binding] !== desired.metadata.annotations[binding]) return conflict(`its ${binding} annotation differs`);
  for (const [key, value] of Object.entries(desired.metadata.labels)) {
    if (found.metadata.labels?.[key] !== value)
      return conflict(`its label ${key} is ${JSON.stringify(found.metadata.labels?.[key] ?? null)}, not ${JSON.stringify(value)}`);
  }
  const owner = desired.metadata.ownerReferences[0];
  const podOwners = (found.metadata.ownerReferences ?? []).filter((reference) => reference['kind'] === 'Pod');
  const otherPod = podOwners.find((reference) => reference['uid'] !== owner?.uid);
  if (otherPod !== undefined) return conflict(`it has an owner reference to Pod UID ${String(otherPod['uid'])}, not ${String(owner?.uid)}`);
  const foundOwner = podOwners.find((reference) => reference['uid'] === owner?.uid);
  // Orphaning deletion of the Pod legitimately removes the reference; a release may proceed without it,
  // never with a reference to another Pod (§8.4 step 1).
  const orphaned = options.releasing === true && podOwners.length === 0;
  if (foundOwner === undefined && !orphaned) return conflict(`it has no owner reference to Pod UID ${String(owner?.uid)}`);
  if (foundOwner?.['blockOwnerDeletion'] === true) return conflict('its Pod owner reference blocks owner deletion');
  if (found.spec?.config !== desired.spec.config) return conflict('its spec.config differs from the rendered configuration');
  return ok((found.metadata.finalizers ?? []).includes(ATTACHMENT_PROTECTION_FINALIZER) ? 'none' : 'restore-finalizer');
}
