import { type JsonObject, type JsonValue, type ObjectRef, type Result, type StrictJsonOptions, JsonNumber, fail, isJsonObject, ok } from '@sriov-dra/contract';
import { goFoldEqual, goFoldKey } from './go-json.ts';
import { PLUGIN_FIELD_TABLES, wrongField } from './plugin-fields.ts';

/**
 * The checks that make a CNI configuration mean the same to every Go program that reads it (§7 step 2).
 * Multus decodes the NAD config into map[string]interface{} (every number a float64), then into
 * libcni's PluginConf/NetConfList structs (keys matched case-insensitively); libcni's conflist loader
 * reads the root as a map (keys matched exactly) and sriov-cni decodes its entry into its own struct.
 * Where those readers could disagree — folded duplicates, an alternative spelling of a field, a type
 * one of them refuses — the configuration is refused here.
 */

/** How every CNI configuration is parsed: Go's duplicates (folded keys) and Go's number range. */
export const GO_STRICT_JSON: StrictJsonOptions = { sameKey: goFoldEqual, finiteNumbers: true };

/** Fields whose spelling must be exact because some reader matches them exactly and another by fold. */
const PLUGIN_FIELDS = ['cniVersion', 'name', 'type', 'ipam', 'dns', 'capabilities', 'prevResult', 'deviceID', 'pciBusID'];
const ROOT_FIELDS = [...PLUGIN_FIELDS, 'plugins', 'disableCheck', 'disableGC', 'loadOnlyInlinedPlugins', 'cniVersions'];
const IPAM_FIELDS = ['type', 'node_slice_size'];
const DNS_FIELDS = ['nameservers', 'domain', 'search', 'options'];

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  return value instanceof JsonNumber ? 'a number' : typeof value;
}

/** The fields of one Go struct: their exact names, their lengths and their folded forms. */
interface FieldIndex {
  readonly exact: ReadonlySet<string>;
  readonly lengths: ReadonlySet<number>;
  readonly byFold: ReadonlyMap<string, string>;
}

function fieldIndex(fields: readonly string[]): FieldIndex {
  return {
    exact: new Set(fields),
    lengths: new Set(fields.map((field) => field.length)),
    byFold: new Map(fields.map((field) => [goFoldKey(field), field])),
  };
}
const PLUGIN_INDEX = fieldIndex(PLUGIN_FIELDS);
const ROOT_INDEX = fieldIndex(ROOT_FIELDS);
const IPAM_INDEX = fieldIndex(IPAM_FIELDS);
const DNS_INDEX = fieldIndex(DNS_FIELDS);

/** A key that folds to one of the indexed fields without being spelled like it. */
function misspelledField(object: JsonObject, index: FieldIndex): { readonly key: string; readonly field: string } | undefined {
  for (const key of object.keys()) {
    // Folding keeps a key's length, so only keys as long as some field need folding.
    if (index.exact.has(key) || !index.lengths.has(key.length)) continue;
    const field = index.byFold.get(goFoldKey(key));
    if (field !== undefined) return { key, field };
  }
  return undefined;
}

/** The struct-typed fields of libcni's PluginConf, which Go refuses to decode from another JSON type. */
function checkPluginTypes(plugin: JsonObject, path: string, object: ObjectRef): Result<void> {
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  for (const key of ['cniVersion', 'name', 'type']) {
    const value = plugin.get(key);
    if (value !== undefined && typeof value !== 'string')
      return fail('MalformedCniConfig', `${at(key)} must be a string, found ${describe(value)}`, { object });
  }
  // null decodes to an unset struct in Go: the same as an absent field.
  const ipam = plugin.get('ipam');
  if (ipam !== undefined && ipam !== null) {
    if (!isJsonObject(ipam)) return fail('MalformedCniConfig', `${at('ipam')} must be an object, found ${describe(ipam)}`, { object });
    const misspelled = misspelledField(ipam, IPAM_INDEX);
    if (misspelled !== undefined)
      return fail('MisspelledCniKey', `${at('ipam')}: key ${JSON.stringify(misspelled.key)} must be spelled ${JSON.stringify(misspelled.field)}`, { object });
    const type = ipam.get('type');
    if (type !== undefined && typeof type !== 'string')
      return fail('MalformedCniConfig', `${at('ipam.type')} must be a string, found ${describe(type)}`, { object });
  }
  const dns = plugin.get('dns');
  if (dns !== undefined && dns !== null) {
    if (!isJsonObject(dns)) return fail('MalformedCniConfig', `${at('dns')} must be an object, found ${describe(dns)}`, { object });
    const misspelled = misspelledField(dns, DNS_INDEX);
    if (misspelled !== undefined)
      return fail('MisspelledCniKey', `${at('dns')}: key ${JSON.stringify(misspelled.key)} must be spelled ${JSON.stringify(misspelled.field)}`, { object });
    const domain = dns.get('domain');
    if (domain !== undefined && typeof domain !== 'string') return fail('MalformedCniConfig', `${at('dns.domain')} must be a string`, { object });
    for (const list of ['nameservers', 'search', 'options']) {
      const value = dns.get(list);
      if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string')))
        return fail('MalformedCniConfig', `${at(`dns.${list}`)} must be a list of strings`, { object });
    }
  }
  const capabilities = plugin.get('capabilities');
  if (
    capabilities !== undefined &&
    capabilities !== null &&
    !(isJsonObject(capabilities) && [...capabilities.values()].every((flag) => typeof flag === 'boolean'))
  )
    return fail('MalformedCniConfig', `${at('capabilities')} must be an object of booleans`, { object });
  const prevResult = plugin.get('prevResult');
  if (prevResult !== undefined && prevResult !== null && !isJsonObject(prevResult))
    return fail('MalformedCniConfig', `${at('prevResult')} must be an object`, { object });
  return ok(undefined);
}

/**
 * The text was parsed with GO_STRICT_JSON, which already refused numbers beyond float64 and two keys
 * one field apart at any level. This refuses an alternative spelling of a field the readers disagree
 * on, a PluginConf field of the wrong JSON type, and conflist-only fields of the wrong type.
 */
export function checkGoDecodable(root: JsonObject, object: ObjectRef): Result<void> {
  // Multus reads a root with a type as a single plugin and ignores plugins and the list flags then. A
  // root type that is not a string (null included) is refused below with the root's other fields.
  const rootType = root.get('type');
  const list = (rootType === undefined || rootType === '') && root.has('plugins');
  const plugins = root.get('plugins');
  const entries: (readonly [JsonObject, string])[] =
    list && Array.isArray(plugins) ? plugins.flatMap((plugin, index) => (isJsonObject(plugin) ? [[plugin, `plugins[${index}]`] as const] : [])) : [];
  for (const [node, path, spelled] of [[root, '', ROOT_INDEX] as const, ...entries.map(([plugin, at]) => [plugin, at, PLUGIN_INDEX] as const)]) {
    const misspelled = misspelledField(node, spelled);
    if (misspelled !== undefined) {
      return fail(
        'MisspelledCniKey',
        `key ${JSON.stringify(misspelled.key)}${path === '' ? '' : ` at ${path}`} is read as ${JSON.stringify(misspelled.field)} by some CNI readers and ignored by others; spell it ${JSON.stringify(misspelled.field)}`,
        { object },
      );
    }
    const types = checkPluginTypes(node, path, object);
    if (!types.ok) return types;
    const type = node.get('type');
    const fields = typeof type === 'string' ? PLUGIN_FIELD_TABLES.get(type) : undefined;
    const problem = fields === undefined ? undefined : wrongField(node, fields);
    if (problem !== undefined) {
      return fail('MalformedCniConfig', `${path === '' ? '' : `${path}.`}${problem}; the ${type as string} plugin could not decode its configuration`, {
        object,
      });
    }
  }
  // Only the list readers (Multus's NetConfList, libcni's conflist loader) read these; a single plugin's are ignored.
  if (!list) return ok(undefined);
  for (const key of ['disableCheck', 'disableGC']) {
    const value = root.get(key);
    if (value !== undefined && typeof value !== 'boolean')
      return fail('MalformedCniConfig', `${key} must be true or false, found ${describe(value)}`, { object });
  }
  // libcni alone reads this flag, from a map: a boolean, or "true"/"false" in any case.
  const inlined = root.get('loadOnlyInlinedPlugins');
  if (inlined !== undefined && typeof inlined !== 'boolean' && !(typeof inlined === 'string' && ['true', 'false'].includes(inlined.toLowerCase())))
    return fail('MalformedCniConfig', `loadOnlyInlinedPlugins must be true or false, found ${describe(inlined)}`, { object });
  // libcni picks the highest of cniVersions at load time, so the version executed would not be the one validated.
  if (root.has('cniVersions')) return fail('UnsupportedCniVersion', 'cniVersions is not supported; set a single cniVersion', { object });
  return ok(undefined);
}
