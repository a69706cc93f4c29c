import {
  type DeviceAttributeValue,
  type ObjectRef,
  type Result,
  checkAttributeBudget,
  deviceAttributeValueSchema,
  fail,
  isDraQualifiedName,
  ok,
  qualifiedAttributeName,
} from '@sriov-dra/contract';
import type { DeviceCapacity, SliceDevice } from '../slices/slice-device.ts';

export interface PublishLimits {
  /**
   * Whether the API server serves list-valued attributes (strings, ints, bools, versions: the alpha
   * DRAListTypeAttributes gate of Kubernetes 1.36). Without it the server drops those members, leaving an
   * attribute without a value, and rejects the whole ResourceSlice.
   */
  readonly listAttributes: boolean;
}

const LIST_MEMBERS = ['strings', 'ints', 'bools', 'versions'] as const;

/**
 * The API server rewrites a quantity into its canonical spelling ("1000" becomes "1k"), so a device
 * published with any other spelling would differ from its stored form on every comparison and be
 * rewritten forever. Only plain integers whose canonical form is themselves are accepted.
 */
function isCanonicalIntegerQuantity(value: string): boolean {
  return value === '0' || (/^[1-9]\d{0,17}$/.test(value) && !value.endsWith('000'));
}

/** Names and values from configuration, quoted and bounded for a message. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function qualify<T>(entries: Readonly<Record<string, T>>, what: string, object: ObjectRef): Result<Record<string, T>> {
  // Qualified names contain "/", so no key can be "__proto__".
  const qualified: Record<string, T> = {};
  for (const [name, value] of Object.entries(entries)) {
    if (!isDraQualifiedName(name)) return fail('InvalidDeviceAttributes', `${what} name ${quoted(name)} is not a DRA qualified name`, { object });
    const key = qualifiedAttributeName(name);
    if (Object.hasOwn(qualified, key)) return fail('InvalidDeviceAttributes', `${what} ${key} is given twice`, { object });
    qualified[key] = value;
  }
  return ok(qualified);
}

/**
 * Assembles what one device publishes and checks it against the limits the API server enforces per
 * device (§12.2.2): qualified names, exactly one valid value member per attribute (strings and versions
 * at most 64 bytes in UTF-8), at most 32 attributes and capacities together. The API server would
 * reject the whole ResourceSlice for one violating device, so the device is refused here instead, by
 * name, and nothing is truncated or dropped to make it fit.
 */
export function buildPublishableDevice(
  device: { readonly pool: string; readonly name: string; readonly capacity: Readonly<Record<string, DeviceCapacity>> },
  attributes: Readonly<Record<string, DeviceAttributeValue>>,
  limits: PublishLimits,
): Result<SliceDevice> {
  const object: ObjectRef = { kind: 'Device', name: `${device.pool}/${device.name}` };
  const qualifiedAttributes = qualify(attributes, 'attribute', object);
  if (!qualifiedAttributes.ok) return qualifiedAttributes;
  const capacity = qualify(device.capacity, 'capacity', object);
  if (!capacity.ok) return capacity;
  for (const [name, value] of Object.entries(qualifiedAttributes.value)) {
    const parsed = deviceAttributeValueSchema.safeParse(value);
    if (!parsed.success) return fail('InvalidDeviceAttributes', `attribute ${name}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`, { object });
    const list = LIST_MEMBERS.find((member) => parsed.data[member] !== undefined);
    if (list !== undefined && !limits.listAttributes) {
      return fail('InvalidDeviceAttributes', `attribute ${name} has a list value (${list}), which this cluster does not serve`, {
        object,
        remedy: 'use a scalar value, or enable the DRAListTypeAttributes feature gate on the API server and scheduler and allow list attributes in the driver',
      });
    }
  }
  for (const [name, quantity] of Object.entries(capacity.value)) {
    if (!isCanonicalIntegerQuantity(quantity.value)) {
      return fail('InvalidDeviceAttributes', `capacity ${name} value ${quoted(quantity.value)} is not a canonical integer quantity`, { object });
    }
  }
  const budget = checkAttributeBudget({ attributes: Object.keys(qualifiedAttributes.value), capacities: Object.keys(capacity.value) }, object);
  if (!budget.ok) return budget;
  return ok({ name: device.name, attributes: qualifiedAttributes.value, capacity: capacity.value });
}
