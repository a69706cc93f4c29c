import { qualifiedAttributeName } from './attribute-name.ts';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { draLimits } from './formats.ts';

/** What one device publishes in a ResourceSlice, by name. */
export interface PublishedDeviceNames {
  readonly attributes: Iterable<string>;
  readonly capacities: Iterable<string>;
}

/**
 * The API server rejects a whole ResourceSlice when one device's attributes and capacities together exceed
 * 32 (§12.2.2), so the budget is checked where a device's attributes are assembled, before publication:
 * failing there names the device and the count, and no key is dropped to make it fit. Names count once in
 * their qualified form. Returns the total.
 */
export function checkAttributeBudget(device: PublishedDeviceNames, object?: ObjectRef): Result<number> {
  const attributes = new Set<string>();
  for (const name of device.attributes) attributes.add(qualifiedAttributeName(name));
  const capacities = new Set<string>();
  for (const name of device.capacities) capacities.add(qualifiedAttributeName(name));
  const total = attributes.size + capacities.size;
  const limit = draLimits.attributesAndCapacitiesPerDevice;
  if (total > limit) {
    return fail('AttributeBudgetExceeded', `${attributes.size} attributes and ${capacities.size} capacities make ${total}, over the limit of ${limit}`, {
      object,
    });
  }
  return ok(total);
}
