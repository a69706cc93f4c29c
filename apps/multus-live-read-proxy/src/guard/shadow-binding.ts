import { type BindingAnnotationV1, type ObjectRef, type Result, annotations, fail, ok, parseBindingAnnotation, shadowNameFor } from '@sriov-dra/contract';

/** The NAD fields the guard reads; the rest of the object is irrelevant to ownership. */
export interface NadMetadata {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/**
 * Recognizes a driver-generated shadow by its binding annotation (§10.3). An ordinary NAD has none and
 * yields null: the guard leaves ordinary NADs alone. A present annotation must parse at a known version
 * and the object name must derive from its attachmentID, so a copied annotation cannot dress up an
 * arbitrary NAD as a shadow.
 */
export function readShadowBinding(nad: NadMetadata): Result<BindingAnnotationV1 | null> {
  const raw = nad.metadata.annotations?.[annotations.binding];
  if (raw === undefined) return ok(null);
  const object: ObjectRef = { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name };
  const binding = parseBindingAnnotation(raw, { ...object, field: `annotation ${annotations.binding}` });
  if (!binding.ok) return binding;
  const expected = shadowNameFor(binding.value.attachmentID);
  if (nad.metadata.name !== expected) {
    return fail('ManagedShadowMismatch', `name does not derive from attachmentID ${binding.value.attachmentID} (expected ${expected})`, { object });
  }
  return binding;
}
