import { type DeviceAttributeValue, type DeviceAttributes, type NadReference, type Result, fail, ok, validateDeviceAttributes } from '@sriov-dra/contract';

export interface MergedDeviceAttributes {
  /** Custom attributes of all matching objects, merged in name order; the last duplicate key wins. */
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  /** The one template reference the matching objects agree on, or null when none carries one. */
  readonly nadReference: NadReference | null;
  /** Names of the merged objects, in merge order, for diagnostics. */
  readonly sources: readonly string[];
}

function sameReference(a: NadReference, b: NadReference): boolean {
  // Namespaces are compared in symbolic form: a defaulted (Pod) namespace never equals an explicit one,
  // even if a future Pod might live there (§5.3).
  return a.name === b.name && a.namespace === b.namespace;
}

function describeReference(reference: NadReference): string {
  return `${reference.namespace ?? '<pod namespace>'}/${reference.name}`;
}

/**
 * Merges the DeviceAttributes objects selected by the winning policy config (§5.3). Ordinary keys keep
 * the existing last-writer precedence; the template reference does not: objects that disagree about it
 * are an error naming both, and a reference is never assembled from fragments of different objects.
 */
export function mergeDeviceAttributes(objects: readonly unknown[]): Result<MergedDeviceAttributes> {
  const validated: DeviceAttributes[] = [];
  for (const object of objects) {
    const result = validateDeviceAttributes(object);
    if (!result.ok) return result;
    validated.push(result.value);
  }
  validated.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const attributes: Record<string, DeviceAttributeValue> = {};
  let reference: { value: NadReference; from: string } | null = null;
  for (const object of validated) {
    Object.assign(attributes, object.attributes);
    if (object.nadReference === null) continue;
    if (reference !== null && !sameReference(reference.value, object.nadReference)) {
      return fail(
        'ConflictingNetAttachDefReference',
        `DeviceAttributes ${reference.from} selects ${describeReference(reference.value)} but ${object.name} selects ${describeReference(object.nadReference)}`,
        { object: { kind: 'DeviceAttributes', namespace: object.namespace, name: object.name } },
      );
    }
    reference = { value: object.nadReference, from: object.name };
  }
  return ok({ attributes, nadReference: reference?.value ?? null, sources: validated.map((object) => object.name) });
}
