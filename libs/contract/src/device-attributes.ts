import { z } from 'zod';
import { type DeviceAttributeValue, deviceAttributeValueSchema } from './dra-attribute-value.ts';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { isDraQualifiedName } from './formats.ts';
import { DISCOVERY_RESERVED_ATTRIBUTES, DRIVER_API_VERSION } from './keys.ts';
import { type NadReference, nadReferenceFromAttributes } from './nad-reference.ts';
import { objectMetaSchema } from './object-meta.ts';
import { describeFirstIssue } from './schema-issues.ts';

export const DEVICE_ATTRIBUTES_KIND = 'DeviceAttributes';

export const deviceAttributesSpecSchema = z.strictObject({
  attributes: z
    .record(z.string().refine(isDraQualifiedName, 'attribute names must be <domain>/<C identifier> or a C identifier'), deviceAttributeValueSchema)
    .optional(),
});

export const deviceAttributesSchema = z.looseObject({
  apiVersion: z.literal(DRIVER_API_VERSION),
  kind: z.literal(DEVICE_ATTRIBUTES_KIND),
  metadata: objectMetaSchema,
  spec: deviceAttributesSpecSchema,
});

export interface DeviceAttributes {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  /** The source-template reference this object carries, or null for ordinary custom metadata. */
  readonly nadReference: NadReference | null;
}

const reserved = new Set(DISCOVERY_RESERVED_ATTRIBUTES);

/** Validates a DeviceAttributes object the way the driver consumes it (§5.1, §5.3). */
export function validateDeviceAttributes(value: unknown): Result<DeviceAttributes> {
  const fallback: ObjectRef = { kind: DEVICE_ATTRIBUTES_KIND };
  const parsed = deviceAttributesSchema.safeParse(value);
  if (!parsed.success) {
    const meta = objectMetaSchema.safeParse((value as { metadata?: unknown } | null)?.metadata);
    const object = meta.success ? { ...fallback, namespace: meta.data.namespace, name: meta.data.name } : fallback;
    return fail('InvalidDeviceAttributes', describeFirstIssue(parsed.error), { object });
  }
  const { metadata, spec } = parsed.data;
  const object: ObjectRef = { kind: DEVICE_ATTRIBUTES_KIND, namespace: metadata.namespace, name: metadata.name };
  const attributes = spec.attributes ?? {};
  const owned = Object.keys(attributes).find((key) => reserved.has(key));
  if (owned !== undefined) return fail('ReservedDRAAttribute', `attribute ${owned} is published by hardware discovery`, { object });
  const nadReference = nadReferenceFromAttributes(attributes, object);
  if (!nadReference.ok) return nadReference;
  return ok({
    name: metadata.name,
    namespace: metadata.namespace,
    labels: metadata.labels ?? {},
    attributes,
    nadReference: nadReference.value,
  });
}
