import { type JsonObject, type JsonValue, JsonNumber, isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { goFoldEqual } from '@sriov-dra/cni-render';
import { CniInvocationError } from './cni-error.ts';
import { isValidNetworkName } from './runtime-conf.ts';

/** The cniVersions this daemon executes (the same set the renderer accepts). */
export const SUPPORTED_CNI_VERSIONS: readonly string[] = ['0.4.0', '1.0.0', '1.1.0'];
/** The newest spec version libcni v1.3.0 implements; a `cniVersions` entry above it is skipped. */
const IMPLEMENTED_SPEC_VERSION = '1.1.0';

/** One plugin of a network: its type, the capabilities it declares, and its exact JSON object. */
export interface PluginConfig {
  readonly type: string;
  /** The capabilities declared true, in configuration order. */
  readonly capabilities: readonly string[];
  readonly raw: JsonObject;
}

/**
 * A delegate network as libcni runs it: a single plugin (`conf`) or a list (`conflist`). `bytes` are the
 * exact configuration bytes; the libcni cache stores them.
 */
export interface NetworkConfig {
  readonly kind: 'conf' | 'conflist';
  readonly name: string;
  readonly cniVersion: string;
  /** A conflist's `disableCheck`: CHECK then succeeds without running any plugin. */
  readonly disableCheck: boolean;
  /** A conflist's `disableGC`: GC then does nothing at all, not even the stale cache entries' DEL. */
  readonly disableGC: boolean;
  readonly plugins: readonly PluginConfig[];
  readonly bytes: Uint8Array;
}

class Malformed extends Error {}

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  return value instanceof JsonNumber ? 'a number' : typeof value;
}

function optionalString(object: JsonObject, key: string, at: string): string {
  const value = object.get(key);
  // Go decodes null into a string field as the empty string.
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Malformed(`${at}${key} must be a string, found ${describe(value)}`);
  return value;
}

function capabilitiesOf(plugin: JsonObject, at: string): string[] {
  const value = plugin.get('capabilities');
  if (value === undefined || value === null) return [];
  if (!isJsonObject(value)) throw new Malformed(`${at}capabilities must be an object of booleans, found ${describe(value)}`);
  const declared: string[] = [];
  for (const [capability, enabled] of value) {
    if (typeof enabled !== 'boolean') throw new Malformed(`${at}capabilities.${capability} must be a boolean, found ${describe(enabled)}`);
    if (enabled) declared.push(capability);
  }
  return declared;
}

function pluginOf(object: JsonObject, at: string): PluginConfig {
  const type = optionalString(object, 'type', at);
  if (type === '') throw new Malformed(`${at}type is missing`);
  optionalString(object, 'name', at);
  optionalString(object, 'cniVersion', at);
  return { type, capabilities: capabilitiesOf(object, at), raw: object };
}

/** libcni's conflist booleans: true/false, or the strings "true"/"false" in any case. */
function listFlag(root: JsonObject, key: string): boolean {
  const value = root.get(key);
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
  }
  throw new Malformed(`${key} must be a boolean or "true"/"false", found ${describe(value)}`);
}

function versionParts(version: string): readonly [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/u.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compareVersions(a: string, b: string): number {
  const [pa, pb] = [versionParts(a), versionParts(b)];
  if (pa === undefined || pb === undefined) throw new Malformed(`${JSON.stringify(pa === undefined ? a : b)} is not a version x.y.z`);
  for (let index = 0; index < 3; index += 1) {
    const difference = (pa[index] ?? 0) - (pb[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** libcni's conflist version: the highest of cniVersion and cniVersions not above the implemented spec. */
function listVersion(root: JsonObject): string {
  const declared = optionalString(root, 'cniVersion', '');
  const versions = root.get('cniVersions');
  if (versions === undefined) return declared;
  if (!Array.isArray(versions)) throw new Malformed(`cniVersions must be an array of strings, found ${describe(versions)}`);
  const candidates = versions.map((entry, index) => {
    if (typeof entry !== 'string') throw new Malformed(`cniVersions[${index}] must be a string, found ${describe(entry)}`);
    return entry;
  });
  if (declared !== '') candidates.push(declared);
  const usable = candidates.filter((version) => compareVersions(version, IMPLEMENTED_SPEC_VERSION) <= 0);
  return (
    usable.reduce<string | undefined>((best, version) => (best === undefined || compareVersions(version, best) > 0 ? version : best), undefined) ?? declared
  );
}

function fromRoot(root: JsonObject, bytes: Uint8Array): NetworkConfig {
  const name = optionalString(root, 'name', '');
  if (!isValidNetworkName(name)) throw new Malformed(name === '' ? 'name is missing' : `name ${JSON.stringify(name)} is not a valid CNI network name`);
  // Multus reads a root with a type as a single plugin and ignores plugins then; without one, a list.
  const rootType = root.get('type');
  if (rootType !== undefined && rootType !== null && rootType !== '') {
    const plugin = pluginOf(root, '');
    return { kind: 'conf', name, cniVersion: optionalString(root, 'cniVersion', ''), disableCheck: false, disableGC: false, plugins: [plugin], bytes };
  }
  const plugins = root.get('plugins');
  if (plugins === undefined) throw new Malformed('neither type nor plugins is set');
  if (!Array.isArray(plugins)) throw new Malformed(`plugins must be an array, found ${describe(plugins)}`);
  if (plugins.length === 0) throw new Malformed('plugins is empty');
  const parsed = plugins.map((plugin, index) => {
    if (!isJsonObject(plugin)) throw new Malformed(`plugins[${index}] must be an object, found ${describe(plugin)}`);
    return pluginOf(plugin, `plugins[${index}].`);
  });
  listFlag(root, 'loadOnlyInlinedPlugins');
  return {
    kind: 'conflist',
    name,
    cniVersion: listVersion(root),
    disableCheck: listFlag(root, 'disableCheck'),
    disableGC: listFlag(root, 'disableGC'),
    plugins: parsed,
    bytes,
  };
}

/** A name for messages when the configuration is too broken to yield one. */
function nameHint(root: JsonValue | undefined): string {
  const name = isJsonObject(root) ? root.get('name') : undefined;
  return typeof name === 'string' && name !== '' ? name : '<unnamed>';
}

/**
 * Reads a delegate configuration from its exact bytes: strict JSON (duplicate keys, also those Go's
 * case-insensitive field matching would merge, are refused; numbers keep their text), the libcni shape
 * rules, and the cniVersions this daemon executes.
 */
export function parseNetworkConfig(bytes: Uint8Array): NetworkConfig {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new CniInvocationError('MalformedDelegateConfig', { network: '<unnamed>' }, 'the configuration is not UTF-8', error);
  }
  const parsed = parseStrictJson(text, { sameKey: goFoldEqual, finiteNumbers: true });
  if (!parsed.ok) {
    throw new CniInvocationError('MalformedDelegateConfig', { network: '<unnamed>' }, `${parsed.error.message} at offset ${parsed.error.position}`);
  }
  const root = parsed.value;
  if (!isJsonObject(root))
    throw new CniInvocationError('MalformedDelegateConfig', { network: '<unnamed>' }, `the configuration must be a JSON object, found ${describe(root)}`);
  let network: NetworkConfig;
  try {
    network = fromRoot(root, bytes);
  } catch (error) {
    if (error instanceof Malformed) throw new CniInvocationError('MalformedDelegateConfig', { network: nameHint(root) }, error.message);
    throw error;
  }
  if (!SUPPORTED_CNI_VERSIONS.includes(network.cniVersion)) {
    const found = network.cniVersion === '' ? 'no cniVersion' : `cniVersion ${JSON.stringify(network.cniVersion)}`;
    throw new CniInvocationError('UnsupportedDelegateCniVersion', { network: network.name }, `${found} (supported: ${SUPPORTED_CNI_VERSIONS.join(', ')})`);
  }
  return network;
}
