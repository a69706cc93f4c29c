import {
  type JsonValue,
  type ObjectRef,
  type RegistryEntry,
  type RegistryV1,
  type Result,
  annotations,
  fail,
  ok,
  parseRegistry,
  serializeRegistry,
  validateRegistry,
} from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from './parse.ts';
import { serializeNetworkSelections } from './serialize.ts';

/** Kubernetes' limit on the total size of an object's annotations (keys plus values). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** One attachment the driver wants on the Pod: its registry entry and the source template behind it. */
export interface ManagedSelection {
  readonly entry: RegistryEntry;
  readonly source: { readonly namespace: string; readonly name: string };
}

export interface MergeInput {
  readonly pod: { readonly uid: string; readonly namespace: string; readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  /** Every managed attachment that must be on the Pod (all Pending/Ready bindings), in deterministic order. */
  readonly desired: readonly ManagedSelection[];
  /** Claims being released: their owned entries, and only theirs, are removed. */
  readonly releasedClaims?: readonly string[];
}

export interface MergeResult {
  readonly changed: boolean;
  /** Annotation values to publish; null means the key is absent. Equal to the current values when unchanged. */
  readonly networks: string | null;
  readonly registry: string | null;
}

function managedSelection(entry: RegistryEntry): NetworkSelection {
  return {
    name: entry.name,
    namespace: entry.namespace,
    interface: entry.interface,
    raw: new Map<string, JsonValue>([
      ['name', entry.name],
      ['namespace', entry.namespace],
      ['interface', entry.interface],
    ]),
  };
}

/** A managed selection is exactly {name, namespace, interface} as generated; anything else was edited. */
function isExactlyGenerated(selection: NetworkSelection, entry: RegistryEntry): boolean {
  const raw = selection.raw;
  return raw.size === 3 && raw.get('name') === entry.name && raw.get('namespace') === entry.namespace && raw.get('interface') === entry.interface;
}

/** The registry records an attachment with another interface or rendered config than its checkpoint. */
function disagrees(recorded: RegistryEntry, wanted: RegistryEntry): boolean {
  return wanted.interface !== recorded.interface || wanted.configSHA256 !== recorded.configSHA256;
}

function checkpointConflict(recorded: RegistryEntry, object: ObjectRef): Result<never> {
  return fail('ManagedSelectionConflict', `attachment ${recorded.attachmentID} is recorded with another interface or config than its checkpoint`, { object });
}

function annotationBytes(values: ReadonlyMap<string, string>): number {
  let total = 0;
  for (const [key, value] of values) total += Buffer.byteLength(key) + Buffer.byteLength(value);
  return total;
}

/**
 * Computes the Pod's networks annotation and managed-networks registry (§9 rules 1–9). Foreign entries
 * keep their fields, options and order; owned entries are recognized by registry provenance plus the
 * exact generated tuple, never by name prefix; missing managed entries are appended once, in the
 * desired order; released claims lose only their own entries. A registry entry whose selection is
 * gone is re-added when its attachment is still desired (and must then agree with its checkpoint, as a
 * present one must), dropped with its claim's release, and otherwise kept recorded in place, never
 * re-attached or deleted on a guess. A semantically identical result is reported unchanged with the
 * current values, so repeated repair does not rewrite a running Pod.
 */
export function mergeManagedSelections(input: MergeInput): Result<MergeResult> {
  const { pod } = input;
  const object: ObjectRef = { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid };
  const current = pod.annotations ?? {};
  const currentNetworks = current[annotations.networks];
  const currentRegistry = current[annotations.managedNetworks];

  const selections = parseNetworkSelections(currentNetworks, pod.namespace, object);
  if (!selections.ok) return selections;
  let prior: RegistryV1 = { version: 1, podUID: pod.uid, entries: [] };
  if (currentRegistry !== undefined) {
    const parsed = parseRegistry(currentRegistry, { ...object, field: `annotation ${annotations.managedNetworks}` });
    if (!parsed.ok) return parsed;
    if (parsed.value.podUID !== pod.uid) {
      return fail('InvalidManagedNetworksRegistry', `the registry was written for Pod UID ${parsed.value.podUID}; it was copied, not written for this Pod`, {
        object,
      });
    }
    prior = parsed.value;
  }

  const released = new Set(input.releasedClaims);
  const ownedByName = new Map(prior.entries.map((entry) => [entry.name, entry]));
  const desiredByID = new Map(input.desired.map((selection) => [selection.entry.attachmentID, selection]));
  const desiredNames = new Set(input.desired.map((selection) => selection.entry.name));
  for (const { entry } of input.desired) {
    if (released.has(entry.claimUID)) return fail('ClaimReleaseInProgress', `claim ${entry.claimUID} is both desired and released`, { object });
  }

  const next: NetworkSelection[] = [];
  const kept: RegistryEntry[] = [];
  const placed = new Set<string>();
  for (const [index, selection] of selections.value.entries()) {
    const owned = selection.namespace === pod.namespace ? ownedByName.get(selection.name) : undefined;
    if (owned !== undefined) {
      if (!isExactlyGenerated(selection, owned) || placed.has(owned.attachmentID)) {
        return fail(
          'ManagedSelectionConflict',
          `networks entry ${index} (${selection.namespace}/${selection.name}) differs from the generated selection or repeats it`,
          { object },
        );
      }
      placed.add(owned.attachmentID);
      if (released.has(owned.claimUID)) continue;
      const wanted = desiredByID.get(owned.attachmentID)?.entry;
      if (wanted !== undefined && disagrees(owned, wanted)) return checkpointConflict(owned, object);
      next.push(selection);
      // A repaired shadow has a new UID; everything else about the entry is fixed.
      kept.push(wanted ?? owned);
      continue;
    }
    // Desired names are generated shadow names: one here without a registry entry was not written by this driver.
    if (selection.namespace === pod.namespace && desiredNames.has(selection.name)) {
      return fail('ManagedSelectionConflict', `networks entry ${index} names generated shadow ${selection.name} without registry provenance`, { object });
    }
    const template = input.desired.find((managed) => managed.source.namespace === selection.namespace && managed.source.name === selection.name);
    if (template !== undefined) {
      return fail(
        'ManualSelectionConflictsWithManagedTemplate',
        `networks entry ${index} selects ${selection.namespace}/${selection.name}, the template the driver attaches automatically for attachment ${template.entry.attachmentID}`,
        { object },
      );
    }
    next.push(selection);
  }
  // Registry entries whose selection is gone (removed by hand, or never written after a lost patch):
  // - a wanted attachment's selection is re-added below from its checkpoint (§8.3 repair, §9 rule 5),
  //   which must still agree with the record, exactly as when the selection is present (§9 rule 4);
  // - a released claim's entry goes with the rest of that claim (§9 rule 7);
  // - any other entry stays recorded, unattached, for its own claim's release: the merge never guesses
  //   what to delete (§9 rule 7), and Multus's registry check reports the missing selection (§9). It
  //   keeps its recorded place after the kept entry recorded before it, so an unchanged Pod is not
  //   rewritten (§9 rule 9).
  const unattached = new Map<string | undefined, RegistryEntry[]>();
  let previous: string | undefined;
  for (const entry of prior.entries) {
    if (released.has(entry.claimUID)) continue;
    if (placed.has(entry.attachmentID)) {
      previous = entry.attachmentID;
      continue;
    }
    const wanted = desiredByID.get(entry.attachmentID)?.entry;
    if (wanted !== undefined) {
      if (disagrees(entry, wanted)) return checkpointConflict(entry, object);
      continue;
    }
    unattached.set(previous, [...(unattached.get(previous) ?? []), entry]);
  }
  const nextEntries: RegistryEntry[] = [...(unattached.get(undefined) ?? [])];
  for (const entry of kept) nextEntries.push(entry, ...(unattached.get(entry.attachmentID) ?? []));
  for (const { entry } of input.desired) {
    if (placed.has(entry.attachmentID)) continue;
    next.push(managedSelection(entry));
    nextEntries.push(entry);
  }

  const registry = validateRegistry({ version: 1, podUID: pod.uid, entries: nextEntries }, object);
  if (!registry.ok) return registry;
  const interfaces = new Map<string, number>();
  for (const [index, selection] of next.entries()) {
    if (selection.interface === undefined) continue;
    const previous = interfaces.get(selection.interface);
    if (previous !== undefined)
      return fail('DuplicateInterfaceName', `networks entries ${previous} and ${index} both request interface ${selection.interface}`, { object });
    interfaces.set(selection.interface, index);
  }

  const networks = next.length === 0 ? null : serializeNetworkSelections(next);
  const registryValue = registry.value.entries.length === 0 ? null : serializeRegistry(registry.value);
  // Kept selections are the parsed objects themselves, so the list is unchanged exactly when it holds
  // the same objects in the same order.
  const sameNetworks = next.length === selections.value.length && next.every((selection, index) => selection === selections.value[index]);
  const sameRegistry = registryValue === null ? prior.entries.length === 0 : registryValue === serializeRegistry(prior);
  if (sameNetworks && sameRegistry) return ok({ changed: false, networks: currentNetworks ?? null, registry: currentRegistry ?? null });

  const finalNetworks = sameNetworks ? (currentNetworks ?? null) : networks;
  const finalRegistry = sameRegistry ? (currentRegistry ?? null) : registryValue;
  const after = new Map(Object.entries(current));
  for (const [key, value] of [
    [annotations.networks, finalNetworks],
    [annotations.managedNetworks, finalRegistry],
  ] as const) {
    if (value === null) after.delete(key);
    else after.set(key, value);
  }
  const size = annotationBytes(after);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    return fail('AnnotationTooLarge', `annotations would total ${size} bytes, over the ${TOTAL_ANNOTATION_SIZE_LIMIT}-byte limit`, { object });
  }
  return ok({ changed: true, networks: finalNetworks, registry: finalRegistry });
}
