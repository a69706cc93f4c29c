import { z } from 'zod';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { hex64Schema, interfaceNameSchema, namespaceSchema, shadowNameSchema, uuidSchema } from './format-schemas.ts';
import { shadowNameFor } from './identity.ts';
import { parseVersioned, validateVersioned } from './json-document.ts';
import { annotations } from './keys.ts';
import type { GeneratedSelection } from './selection.ts';

export const REGISTRY_VERSION = 1;

export const registryEntrySchema = z.strictObject({
  attachmentID: hex64Schema,
  claimUID: uuidSchema,
  namespace: namespaceSchema,
  name: shadowNameSchema,
  uid: uuidSchema,
  interface: interfaceNameSchema,
  configSHA256: hex64Schema,
});

/**
 * Pod registry v1 (§6.4, §9): the selections this driver owns on one Pod. Entry order is the managed
 * selection order in the networks annotation. It is not an inventory of every DRA allocation.
 */
export const registryV1Schema = z.strictObject({
  version: z.literal(REGISTRY_VERSION),
  podUID: uuidSchema,
  entries: z.array(registryEntrySchema),
});

export type RegistryEntry = z.infer<typeof registryEntrySchema>;
export type RegistryV1 = z.infer<typeof registryV1Schema>;

/** Rules no per-field schema can express: uniqueness and the name↔identity link. */
function checkEntries(registry: RegistryV1, object?: ObjectRef): Result<RegistryV1> {
  const ids = new Set<string>();
  const names = new Set<string>();
  const interfaces = new Set<string>();
  const namespace = registry.entries[0]?.namespace;
  for (const [index, entry] of registry.entries.entries()) {
    const at = `entries[${index}]`;
    if (ids.has(entry.attachmentID)) return fail('DuplicateAttachmentID', `${at}: attachmentID ${entry.attachmentID} appears twice`, { object });
    ids.add(entry.attachmentID);
    if (entry.name !== shadowNameFor(entry.attachmentID)) {
      return fail('InvalidManagedNetworksRegistry', `${at}: name ${entry.name} does not derive from attachmentID ${entry.attachmentID}`, { object });
    }
    // Two attachments can only share a name on a truncated-hash collision, which must never be merged.
    if (names.has(entry.name)) return fail('DuplicateSelectionIdentity', `${at}: shadow ${entry.namespace}/${entry.name} appears twice`, { object });
    names.add(entry.name);
    if (interfaces.has(entry.interface)) return fail('DuplicateSelectionIdentity', `${at}: interface ${entry.interface} appears twice`, { object });
    interfaces.add(entry.interface);
    // Shadows always live in the Pod's namespace, so one registry spans exactly one namespace.
    if (entry.namespace !== namespace) {
      return fail(
        'InvalidManagedNetworksRegistry',
        `${at}: namespace ${entry.namespace} differs from ${String(namespace)}; shadows live in the Pod namespace`,
        { object },
      );
    }
  }
  return ok(registry);
}

/** What an error names when the caller does not say which Pod the registry came from. */
const SOME_POD: ObjectRef = { kind: 'Pod', field: `annotation ${annotations.managedNetworks}` };

const registryDocument = {
  version: REGISTRY_VERSION,
  schema: registryV1Schema,
  invalid: 'InvalidManagedNetworksRegistry',
  unsupported: 'UnsupportedRegistryVersion',
} as const;

export function validateRegistry(document: unknown, object: ObjectRef = SOME_POD): Result<RegistryV1> {
  const registry = validateVersioned(document, registryDocument, object);
  return registry.ok ? checkEntries(registry.value, object) : registry;
}

/** Parses the raw value of the managed-networks annotation. */
export function parseRegistry(raw: string, object: ObjectRef = SOME_POD): Result<RegistryV1> {
  const registry = parseVersioned(raw, registryDocument, object);
  return registry.ok ? checkEntries(registry.value, object) : registry;
}

/** Compact JSON in the field order of §6.4; entries keep their order. */
export function serializeRegistry(registry: RegistryV1): string {
  return JSON.stringify({
    version: registry.version,
    podUID: registry.podUID,
    entries: registry.entries.map((entry) => ({
      attachmentID: entry.attachmentID,
      claimUID: entry.claimUID,
      namespace: entry.namespace,
      name: entry.name,
      uid: entry.uid,
      interface: entry.interface,
      configSHA256: entry.configSHA256,
    })),
  });
}

/** The selection an entry stands for in the networks annotation. */
export function selectionOf(entry: RegistryEntry): GeneratedSelection {
  return { name: entry.name, namespace: entry.namespace, interface: entry.interface };
}
