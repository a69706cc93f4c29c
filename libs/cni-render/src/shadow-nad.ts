import {
  ATTACHMENT_PROTECTION_FINALIZER,
  type BindingAnnotationV1,
  MANAGED_BY_VALUE,
  type Result,
  annotations,
  fail,
  labels,
  ok,
  serializeBindingAnnotation,
  shadowNameFor,
} from '@sriov-dra/contract';
import type { RenderedShadowConfig } from './shadow-config.ts';

/** The verified consuming Pod. */
export interface ShadowOwner {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

/**
 * A fresh shadow NAD (§6.2, §7 step 10), built from scratch: nothing is copied from the source — no
 * labels, annotations, finalizers or owner marker — and in particular the resourceName annotation key
 * is absent, because Multus enters its device-plugin lookup when the key merely exists. The Pod owner
 * reference (no controller, blockOwnerDeletion false) and the protection finalizer are part of the one
 * Create, so the object is never visible unprotected.
 */
export function buildShadowNad(binding: BindingAnnotationV1, owner: ShadowOwner, rendered: RenderedShadowConfig): Result<Record<string, unknown>> {
  const object = { kind: 'NetworkAttachmentDefinition', namespace: owner.namespace, name: shadowNameFor(binding.attachmentID) };
  if (binding.podUID !== owner.uid) return fail('ConsumerMismatch', `binding is for Pod UID ${binding.podUID}, not ${owner.uid}`, { object });
  if (binding.configSHA256 !== rendered.sha256) {
    return fail('ShadowConflict', `binding records config hash ${binding.configSHA256} but the rendered config hashes to ${rendered.sha256}`, { object });
  }
  return ok({
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: {
      name: object.name,
      namespace: owner.namespace,
      labels: {
        [labels.managedBy]: MANAGED_BY_VALUE,
        [labels.podUID]: binding.podUID,
        [labels.claimUID]: binding.claimUID,
        [labels.nodeUID]: binding.nodeUID,
      },
      annotations: { [annotations.binding]: serializeBindingAnnotation(binding) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid, blockOwnerDeletion: false }],
      finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
    },
    spec: { config: rendered.bytes },
  });
}
