import { z } from 'zod';
import type { ObjectRef, Result } from './errors.ts';
import { hex64Schema, interfaceNameSchema, namespaceSchema, objectNameSchema, pciAddressSchema, resourceVersionSchema, uuidSchema } from './format-schemas.ts';
import { parseVersioned, validateVersioned } from './json-document.ts';
import { annotations } from './keys.ts';

export const BINDING_ANNOTATION_VERSION = 1;

/** Diagnostic provenance: which source template a shadow was rendered from. */
export const bindingSourceSchema = z.strictObject({
  namespace: namespaceSchema,
  name: objectNameSchema,
  uid: uuidSchema,
  resourceVersion: resourceVersionSchema,
});

/**
 * Binding annotation v1 (§6.4): the driver writes it on every shadow NAD; the Multus guard and the
 * driver's own repair read it back. Unknown fields are rejected: a new field means a new version.
 */
export const bindingAnnotationV1Schema = z.strictObject({
  version: z.literal(BINDING_ANNOTATION_VERSION),
  attachmentID: hex64Schema,
  podUID: uuidSchema,
  claimUID: uuidSchema,
  nodeName: objectNameSchema,
  nodeUID: uuidSchema,
  source: bindingSourceSchema,
  pciAddress: pciAddressSchema,
  interface: interfaceNameSchema,
  configSHA256: hex64Schema,
});

export type BindingAnnotationV1 = z.infer<typeof bindingAnnotationV1Schema>;

/** What an error names when the caller does not say which shadow the annotation came from. */
const SOME_SHADOW: ObjectRef = { kind: 'NetworkAttachmentDefinition', field: `annotation ${annotations.binding}` };

const bindingDocument = {
  version: BINDING_ANNOTATION_VERSION,
  schema: bindingAnnotationV1Schema,
  invalid: 'InvalidBindingAnnotation',
  unsupported: 'UnsupportedBindingVersion',
} as const;

export function validateBindingAnnotation(document: unknown, object: ObjectRef = SOME_SHADOW): Result<BindingAnnotationV1> {
  return validateVersioned(document, bindingDocument, object);
}

/** Parses the raw annotation value as found in metadata.annotations. */
export function parseBindingAnnotation(raw: string, object: ObjectRef = SOME_SHADOW): Result<BindingAnnotationV1> {
  return parseVersioned(raw, bindingDocument, object);
}

/** Compact JSON with the field order of §6.4, so equal bindings always serialize to equal bytes. */
export function serializeBindingAnnotation(binding: BindingAnnotationV1): string {
  return JSON.stringify({
    version: binding.version,
    attachmentID: binding.attachmentID,
    podUID: binding.podUID,
    claimUID: binding.claimUID,
    nodeName: binding.nodeName,
    nodeUID: binding.nodeUID,
    source: {
      namespace: binding.source.namespace,
      name: binding.source.name,
      uid: binding.source.uid,
      resourceVersion: binding.source.resourceVersion,
    },
    pciAddress: binding.pciAddress,
    interface: binding.interface,
    configSHA256: binding.configSHA256,
  });
}
