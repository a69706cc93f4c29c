import {
  type DeviceAttributeValue,
  type DeviceAttributes,
  type NadReference,
  type ObjectRef,
  type Result,
  checkAttributeBudget,
  fail,
  ok,
  qualifiedAttributeName,
  validateDeviceAttributes,
} from '@sriov-dra/contract';

export interface MergedDeviceAttributes {
  /** Custom attributes of all matching objects by qualified name, merged in name order; the last duplicate key wins. */
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  /** The one template reference the matching objects agree on, or null when none carries one. */
  readonly nadReference: NadReference | null;
  /** Names of the merged objects, in merge order, for diagnostics. */
  readonly sources: readonly string[];
}

/** What hardware discovery publishes for the device the merged attributes will be added to. */
export interface DiscoveredDevice {
  readonly pool: string;
  readonly name: string;
  /** Attribute names discovery publishes (bare names are in the driver's domain). */
  readonly attributeNames: readonly string[];
  readonly capacityNames: readonly string[];
}

/** Stands in for a device only when objects are checked before any device is known. */
const NO_DISCOVERED_DEVICE: DiscoveredDevice = { pool: '', name: '', attributeNames: [], capacityNames: [] };

function sameReference(a: NadReference, b: NadReference): boolean {
  // Namespaces are compared in symbolic form: a defaulted (Pod) namespace never equals an explicit one,
  // even if a future Pod might live there (§5.3).
  return a.name === b.name && a.namespace === b.namespace;
}

function describeReference(reference: NadReference): string {
  return `${reference.namespace ?? '<pod namespace>'}/${reference.name}`;
}

function refOf(object: DeviceAttributes): ObjectRef {
  return { kind: 'DeviceAttributes', namespace: object.namespace, name: object.name };
}

/**
 * Merges the DeviceAttributes objects selected by the winning policy config (§5.3) into the attributes of
 * one device. Ordinary keys keep the existing last-writer precedence; the template reference does not:
 * objects that disagree about it are an error naming both, and a reference is never assembled from
 * fragments of different objects. Discovered attributes are never overwritten, and the device's final
 * attribute and capacity count must fit the DRA budget (§12.2.2): the API server would otherwise reject
 * the whole ResourceSlice, and dropping keys to fit would change what administrators configured.
 * `device` is omitted only when objects are checked before any device is known; the custom attributes
 * alone must then fit.
 */
export function mergeDeviceAttributes(objects: readonly unknown[], device: DiscoveredDevice = NO_DISCOVERED_DEVICE): Result<MergedDeviceAttributes> {
  const validated: DeviceAttributes[] = [];
  for (const object of objects) {
    const result = validateDeviceAttributes(object);
    if (!result.ok) return result;
    validated.push(result.value);
  }
  validated.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const discovered = new Set(device.attributeNames.map(qualifiedAttributeName));
  // Keys are qualified names (they contain "/"), so plain assignment cannot hit "__proto__".
  const attributes: Record<string, DeviceAttributeValue> = {};
  let reference: { value: NadReference; from: string } | null = null;
  for (const object of validated) {
    for (const [key, value] of Object.entries(object.attributes)) {
      if (discovered.has(key))
        return fail('ReservedDRAAttribute', `attribute ${key} is published by discovery for device ${device.pool}/${device.name}`, { object: refOf(object) });
      attributes[key] = value;
    }
    if (object.nadReference === null) continue;
    if (reference !== null && !sameReference(reference.value, object.nadReference)) {
      return fail(
        'ConflictingNetAttachDefReference',
        `DeviceAttributes ${reference.from} selects ${describeReference(reference.value)} but ${object.name} selects ${describeReference(object.nadReference)}`,
        { object: refOf(object) },
      );
    }
    reference = { value: object.nadReference, from: object.name };
  }
  const budget = checkAttributeBudget(
    { attributes: [...discovered, ...Object.keys(attributes)], capacities: device.capacityNames },
    device === NO_DISCOVERED_DEVICE
      ? { kind: 'DeviceAttributes', name: validated.map((object) => object.name).join(',') }
      : { kind: 'Device', name: `${device.pool}/${device.name}` },
  );
  if (!budget.ok) return budget;
  return ok({ attributes, nadReference: reference?.value ?? null, sources: validated.map((object) => object.name) });
}
