import {
  type JsonObject,
  type JsonValue,
  METAPLUGIN_ALLOWLIST,
  type ObjectRef,
  type Result,
  SRIOV_PLUGIN_TYPE,
  fail,
  isJsonObject,
  ok,
  parseStrictJson,
  serializeJson,
} from '@sriov-dra/contract';
import { goFoldEqual } from '@sriov-dra/cni-render';

/** Fields that name a PCI device: sriov-cni reads deviceID; pciBusID is kept by some configurations for compatibility. */
const DEVICE_FIELDS = ['deviceID', 'pciBusID'] as const;

const REMEDY =
  'the shadow no longer carries a configuration the driver renders: recreate the Pod so the driver binds its VF again, and stop other writers from editing driver-owned NADs';

/** A configuration's key as Go reads it: the one key equal to `field` under Go's case folding (strict parsing left at most one). */
interface FoundField {
  readonly key: string;
  readonly value: JsonValue;
}

function findField(object: JsonObject, field: string): FoundField | undefined {
  for (const [key, value] of object) if (goFoldEqual(key, field)) return { key, value };
  return undefined;
}

function describe(value: JsonValue | undefined): string {
  return value === undefined ? 'missing' : serializeJson(value);
}

/**
 * The meaning of a shadow's configuration, checked by this daemon itself (§7 steps 4–7, §10.3) rather
 * than by comparing it with what this build's renderer would write, so a driver and a daemon of
 * different releases agree as long as the contract holds: the bytes parse strictly (Go's folded
 * duplicate keys and numbers beyond float64 refused), exactly one sriov plugin receives the VF — the
 * whole configuration, or a conflist's first entry followed only by allowlisted metaplugins — its
 * deviceID (and pciBusID, when set) decodes to the bound PCI address, and no other place names another
 * device. A field Go would read under another spelling ("DeviceID") is refused: the plugins would read
 * it while a reader matching exactly would not.
 */
export function checkShadowSemantics(config: string, pciAddress: string, object: ObjectRef): Result<void> {
  const mismatch = (detail: string): Result<never> => fail('ManagedShadowMismatch', `spec.config ${detail}`, { object, remedy: REMEDY });
  const parsed = parseStrictJson(config, { sameKey: goFoldEqual, finiteNumbers: true });
  if (!parsed.ok) return mismatch(`is not strict JSON (${parsed.error.kind}): ${parsed.error.message}`);
  const root = parsed.value;
  if (!isJsonObject(root)) return mismatch('is not a JSON object');

  const field = (node: JsonObject, name: string, at: string): Result<JsonValue | undefined> => {
    const found = findField(node, name);
    if (found === undefined) return ok(undefined);
    if (found.key !== name) return mismatch(`spells ${at}${name} as ${JSON.stringify(found.key)}; Go's decoders read it, exact readers do not`);
    return ok(found.value);
  };

  const rootType = field(root, 'type', '');
  if (!rootType.ok) return rootType;
  const plugins = field(root, 'plugins', '');
  if (!plugins.ok) return plugins;
  let sriov: JsonObject;
  let sriovAt: string;
  /** Where no device may be named differently: a conflist's root and its metaplugins. */
  const elsewhere: { readonly node: JsonObject; readonly at: string }[] = [];
  if (rootType.value !== undefined) {
    if (plugins.value !== undefined) return mismatch('has both a root type and plugins; a shadow is a single sriov plugin or a conflist');
    if (rootType.value !== SRIOV_PLUGIN_TYPE) return mismatch(`is a single ${describe(rootType.value)} plugin, not ${SRIOV_PLUGIN_TYPE}`);
    sriov = root;
    sriovAt = '';
  } else {
    const list = plugins.value;
    if (!Array.isArray(list) || list.length === 0) return mismatch(`has neither a root type nor a nonempty plugins list (plugins: ${describe(list)})`);
    const types: string[] = [];
    for (const [index, plugin] of list.entries()) {
      if (!isJsonObject(plugin)) return mismatch(`plugins[${String(index)}] is not an object`);
      const type = field(plugin, 'type', `plugins[${String(index)}].`);
      if (!type.ok) return type;
      if (typeof type.value !== 'string') return mismatch(`plugins[${String(index)}].type is ${describe(type.value)}, not a plugin name`);
      types.push(type.value);
    }
    const sriovCount = types.filter((type) => type === SRIOV_PLUGIN_TYPE).length;
    if (sriovCount !== 1) return mismatch(`has ${String(sriovCount)} ${SRIOV_PLUGIN_TYPE} plugin entries; a shadow hands its one VF to exactly one`);
    if (types[0] !== SRIOV_PLUGIN_TYPE) return mismatch(`starts with ${JSON.stringify(types[0])}; the ${SRIOV_PLUGIN_TYPE} entry must come first`);
    for (const [index, type] of types.entries()) {
      if (index > 0 && !METAPLUGIN_ALLOWLIST.includes(type)) {
        return mismatch(`chains ${JSON.stringify(type)} at plugins[${String(index)}]; only ${METAPLUGIN_ALLOWLIST.join(', ')} may follow ${SRIOV_PLUGIN_TYPE}`);
      }
    }
    const [first, ...rest] = list as JsonObject[];
    if (first === undefined) return mismatch('has no plugins');
    sriov = first;
    sriovAt = 'plugins[0].';
    elsewhere.push({ node: root, at: '' }, ...rest.map((node, index) => ({ node, at: `plugins[${String(index + 1)}].` })));
  }

  const deviceID = field(sriov, 'deviceID', sriovAt);
  if (!deviceID.ok) return deviceID;
  if (deviceID.value !== pciAddress)
    return mismatch(`hands the ${SRIOV_PLUGIN_TYPE} plugin deviceID ${describe(deviceID.value)}, not the bound VF ${pciAddress}`);
  const pciBusID = field(sriov, 'pciBusID', sriovAt);
  if (!pciBusID.ok) return pciBusID;
  // Go reads null and "" as unset, like an absent key.
  if (pciBusID.value !== undefined && pciBusID.value !== null && pciBusID.value !== '' && pciBusID.value !== pciAddress) {
    return mismatch(`names pciBusID ${describe(pciBusID.value)} at the ${SRIOV_PLUGIN_TYPE} plugin, not the bound VF ${pciAddress}`);
  }
  for (const { node, at } of elsewhere) {
    for (const name of DEVICE_FIELDS) {
      const value = field(node, name, at);
      if (!value.ok) return value;
      if (value.value === undefined || value.value === null || value.value === '' || value.value === pciAddress) continue;
      return mismatch(`names ${at === '' ? 'at its root ' : ''}${at}${name} ${describe(value.value)}, which disagrees with the bound VF ${pciAddress}`);
    }
  }
  return ok(undefined);
}
