import { type JsonObject, type JsonValue, type ObjectRef, type Result, JsonNumber, fail, isJsonObject, ok } from '@sriov-dra/contract';
import { findFloat64Overflow, findFoldedDuplicate, goFoldKey } from './go-json.ts';

/**
 * The checks that make a CNI configuration mean the same to every Go program that reads it (§7 step 2).
 * Multus decodes the NAD config into map[string]interface{} (every number a float64), then into
 * libcni's PluginConf/NetConfList structs (keys matched case-insensitively); libcni's conflist loader
 * reads the root as a map (keys matched exactly) and sriov-cni decodes its entry into its own struct.
 * Where those readers could disagree — folded duplicates, an alternative spelling of a field, a type
 * one of them refuses — the configuration is refused here.
 */

/** Fields whose spelling must be exact because some reader matches them exactly and another by fold. */
const PLUGIN_FIELDS = ['cniVersion', 'name', 'type', 'ipam', 'dns', 'capabilities', 'prevResult', 'deviceID', 'pciBusID'];
const ROOT_FIELDS = [...PLUGIN_FIELDS, 'plugins', 'disableCheck', 'disableGC', 'loadOnlyInlinedPlugins', 'cniVersions'];
const IPAM_FIELDS = ['type', 'node_slice_size'];
const DNS_FIELDS = ['nameservers', 'domain', 'search', 'options'];

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  return value instanceof JsonNumber ? 'a number' : typeof value;
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Every object in the tree, with its path. */
function* objects(value: JsonValue, path: string): Generator<readonly [JsonObject, string]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* objects(item, join(path, index));
  } else if (isJsonObject(value)) {
    yield [value, path];
    for (const [key, item] of value) yield* objects(item, join(path, key));
  }
}

/** A key that folds to one of `fields` without being spelled like it. */
function misspelledField(object: JsonObject, fields: readonly string[]): { readonly key: string; readonly field: string } | undefined {
  for (const key of object.keys()) {
    if (fields.includes(key)) continue;
    const folded = goFoldKey(key);
    const field = fields.find((candidate) => goFoldKey(candidate) === folded);
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
  const ipam = plugin.get('ipam');
  if (ipam !== undefined) {
    if (!isJsonObject(ipam)) return fail('MalformedCniConfig', `${at('ipam')} must be an object, found ${describe(ipam)}`, { object });
    const misspelled = misspelledField(ipam, IPAM_FIELDS);
    if (misspelled !== undefined)
      return fail('MalformedCniConfig', `${at('ipam')}: key ${JSON.stringify(misspelled.key)} must be spelled ${JSON.stringify(misspelled.field)}`, { object });
    const type = ipam.get('type');
    if (type !== undefined && typeof type !== 'string')
      return fail('MalformedCniConfig', `${at('ipam.type')} must be a string, found ${describe(type)}`, { object });
  }
  const dns = plugin.get('dns');
  if (dns !== undefined) {
    if (!isJsonObject(dns)) return fail('MalformedCniConfig', `${at('dns')} must be an object, found ${describe(dns)}`, { object });
    const misspelled = misspelledField(dns, DNS_FIELDS);
    if (misspelled !== undefined)
      return fail('MalformedCniConfig', `${at('dns')}: key ${JSON.stringify(misspelled.key)} must be spelled ${JSON.stringify(misspelled.field)}`, { object });
    const domain = dns.get('domain');
    if (domain !== undefined && typeof domain !== 'string') return fail('MalformedCniConfig', `${at('dns.domain')} must be a string`, { object });
    for (const list of ['nameservers', 'search', 'options']) {
      const value = dns.get(list);
      if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string')))
        return fail('MalformedCniConfig', `${at(`dns.${list}`)} must be a list of strings`, { object });
    }
  }
  const capabilities = plugin.get('capabilities');
  if (capabilities !== undefined && !(isJsonObject(capabilities) && [...capabilities.values()].every((flag) => typeof flag === 'boolean')))
    return fail('MalformedCniConfig', `${at('capabilities')} must be an object of booleans`, { object });
  const prevResult = plugin.get('prevResult');
  if (prevResult !== undefined && !isJsonObject(prevResult)) return fail('MalformedCniConfig', `${at('prevResult')} must be an object`, { object });
  return ok(undefined);
}

/**
 * Refuses what Go would decode differently or not at all: numbers beyond float64, two keys one field
 * apart (at every level), an alternative spelling of a field the readers disagree on, a PluginConf
 * field of the wrong JSON type, and conflist-only fields of the wrong type.
 */
export function checkGoDecodable(root: JsonObject, object: ObjectRef): Result<void> {
  const overflow = findFloat64Overflow(root);
  if (overflow !== undefined) {
    return fail('MalformedCniConfig', `the number ${overflow.raw} at ${overflow.path} does not fit a float64, so Multus cannot decode the configuration`, {
      object,
    });
  }
  for (const [node, path] of objects(root, '')) {
    const duplicate = findFoldedDuplicate(node);
    if (duplicate !== undefined) {
      return fail(
        'DuplicateCniKey',
        `keys ${JSON.stringify(duplicate.first)} and ${JSON.stringify(duplicate.second)}${path === '' ? '' : ` at ${path}`} are one field to Go's encoding/json`,
        { object },
      );
    }
  }
  const plugins = root.get('plugins');
  const entries: (readonly [JsonObject, string])[] = Array.isArray(plugins)
    ? plugins.flatMap((plugin, index) => (isJsonObject(plugin) ? [[plugin, `plugins[${index}]`] as const] : []))
    : [];
  for (const [node, path, fields] of [[root, '', ROOT_FIELDS] as const, ...entries.map(([plugin, at]) => [plugin, at, PLUGIN_FIELDS] as const)]) {
    const misspelled = misspelledField(node, fields);
    if (misspelled !== undefined) {
      return fail(
        'MalformedCniConfig',
        `key ${JSON.stringify(misspelled.key)}${path === '' ? '' : ` at ${path}`} is read as ${JSON.stringify(misspelled.field)} by some CNI readers and ignored by others; spell it ${JSON.stringify(misspelled.field)}`,
        { object },
      );
    }
    const types = checkPluginTypes(node, path, object);
    if (!types.ok) return types;
  }
  for (const key of ['disableCheck', 'disableGC']) {
    const value = root.get(key);
    if (value !== undefined && typeof value !== 'boolean')
      return fail('MalformedCniConfig', `${key} must be true or false, found ${describe(value)}`, { object });
  }
  const inlined = root.get('loadOnlyInlinedPlugins');
  if (inlined !== undefined && typeof inlined !== 'boolean')
    return fail('MalformedCniConfig', `loadOnlyInlinedPlugins must be true or false, found ${describe(inlined)}`, { object });
  // libcni picks the highest of cniVersions at load time, so the version executed would not be the one validated.
  if (root.has('cniVersions')) return fail('UnsupportedCniVersion', 'cniVersions is not supported; set a single cniVersion', { object });
  return ok(undefined);
}
