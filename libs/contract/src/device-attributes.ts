import { z } from 'zod';
import { checkAttributeBudget } from './attribute-budget.ts';
import { qualifiedAttributeName } from './attribute-name.ts';
import { type DeviceAttributeValue, deviceAttributeValueSchema } from './dra-attribute-value.ts';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { isDraQualifiedName } from './formats.ts';
import { DISCOVERY_RESERVED_ATTRIBUTES, DRIVER_API_VERSION } from './keys.ts';
import { messageValue } from './message-value.ts';
import { type NadReference, nadReferenceFromAttributes } from './nad-reference.ts';
import { objectMetaSchema, objectRefOf } from './object-meta.ts';
import { objectRecordSchema } from './object-record.ts';
import { describeFirstIssue } from './schema-issues.ts';

export const DEVICE_ATTRIBUTES_KIND = 'DeviceAttributes';

/** The object's shape; the attribute map is read key by key in readAttributes (see objectRecordSchema). */
export const deviceAttributesSchema = z.looseObject({
  apiVersion: z.literal(DRIVER_API_VERSION),
  kind: z.literal(DEVICE_ATTRIBUTES_KIND),
  metadata: objectMetaSchema,
  spec: z.strictObject({
    attributes: objectRecordSchema('must be a map from attribute name to value').optional(),
  }),
});

export interface DeviceAttributes {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** Every attribute, keyed by its fully qualified name. */
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  /** The source-template reference this object carries, or null for ordinary custom metadata. */
  readonly nadReference: NadReference | null;
}

const reserved = new Set(DISCOVERY_RESERVED_ATTRIBUTES);

function describeKey(key: string, qualified: string): string {
  return key === qualified ? messageValue(key) : `${messageValue(key)} (${qualified})`;
}

/** Every entry of the map, validated and keyed by its qualified name; no entry is skipped or merged. */
function readAttributes(map: Readonly<Record<string, unknown>>, object: ObjectRef): Result<Record<string, DeviceAttributeValue>> {
  // Qualified names always contain "/", so no key of this object can be "__proto__".
  const attributes: Record<string, DeviceAttributeValue> = {};
  const spelledAs = new Map<string, string>();
  for (const [key, raw] of Object.entries(map)) {
    if (!isDraQualifiedName(key)) {
      return fail('InvalidDeviceAttributes', `attribute name ${messageValue(key)} is not <domain>/<C identifier> or a C identifier`, { object });
    }
    const qualified = qualifiedAttributeName(key);
    const earlier = spelledAs.get(qualified);
    if (earlier !== undefined) {
      return fail('InvalidDeviceAttributes', `attributes ${messageValue(earlier)} and ${messageValue(key)} are both ${qualified}`, { object });
    }
    spelledAs.set(qualified, key);
    if (reserved.has(qualified)) return fail('ReservedDRAAttribute', `attribute ${describeKey(key, qualified)} is published by hardware discovery`, { object });
    const value = deviceAttributeValueSchema.safeParse(raw);
    if (!value.success) return fail('InvalidDeviceAttributes', `attribute ${describeKey(key, qualified)}: ${describeFirstIssue(value.error)}`, { object });
    attributes[qualified] = value.data;
  }
  return ok(attributes);
}

/** Validates a DeviceAttributes object the way the driver consumes it (§5.1, §5.3). Never throws. */
export function validateDeviceAttributes(value: unknown): Result<DeviceAttributes> {
  const parsed = deviceAttributesSchema.safeParse(value);
  if (!parsed.success) return fail('InvalidDeviceAttributes', describeFirstIssue(parsed.error), { object: objectRefOf(DEVICE_ATTRIBUTES_KIND, value) });
  const { metadata, spec } = parsed.data;
  const object: ObjectRef = { kind: DEVICE_ATTRIBUTES_KIND, namespace: metadata.namespace, name: metadata.name };
  const attributes = readAttributes(spec.attributes ?? {}, object);
  if (!attributes.ok) return attributes;
  // No device can publish more than the budget, whatever discovery adds; the driver checks the real total.
  const budget = checkAttributeBudget({ attributes: Object.keys(attributes.value), capacities: [] }, object);
  if (!budget.ok) return budget;
  const nadReference = nadReferenceFromAttributes(attributes.value, object);
  if (!nadReference.ok) return nadReference;
  return ok({
    name: metadata.name,
    namespace: metadata.namespace,
    labels: metadata.labels ?? {},
    attributes: attributes.value,
    nadReference: nadReference.value,
  });
}
