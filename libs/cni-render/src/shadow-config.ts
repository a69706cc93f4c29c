import { createHash } from 'node:crypto';
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
import { effectiveCniName, isCniNetworkName } from './cni-name.ts';
import { GO_STRICT_JSON, checkGoDecodable } from './cni-config-shape.ts';
import { normalizePciAddress } from './pci-address.ts';

/** CNI versions the supported libcni/sriov-cni/IPAM combination executes. */
export const SUPPORTED_CNI_VERSIONS: readonly string[] = ['0.4.0', '1.0.0', '1.1.0'];

/** The part of a source NetworkAttachmentDefinition rendering reads. */
export interface SourceNad {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec?: { readonly config?: string };
}

export interface RenderedShadowConfig {
  /** The exact CNI configuration text of the shadow, frozen in the checkpoint. */
  readonly bytes: string;
  /** Lowercase hex SHA-256 of the UTF-8 bytes. */
  readonly sha256: string;
  /** The CNI network name the configuration carries (materialized if the source omitted it). */
  readonly effectiveName: string;
  /** Index of the sriov entry in `plugins`, or null for a single-plugin configuration. */
  readonly pluginIndex: number | null;
  /** The plugin type the allocated VF is handed to (§16.1); always sriov today. */
  readonly pluginType: string;
}

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  return typeof value === 'object' ? 'a number' : typeof value;
}

/**
 * Renders the shadow configuration for one allocated VF from its source template (§7 steps 1–9, §7.1):
 * strict lossless decoding, the effective CNI name materialized, the topology checked (one sriov plugin,
 * alone or first in a conflist followed only by allowlisted metaplugins), the allocated PCI set as
 * deviceID on the sriov entry only, and everything else — IPAM above all — carried over unchanged.
 * Rendering the output again yields the same bytes.
 */
export function renderShadowConfig(source: SourceNad, allocatedPci: string): Result<RenderedShadowConfig> {
  const object: ObjectRef = { kind: 'NetworkAttachmentDefinition', namespace: source.metadata.namespace, name: source.metadata.name, field: 'spec.config' };
  const pci = normalizePciAddress(allocatedPci);
  if (!pci.ok) return pci;

  const text = source.spec?.config;
  if (text === undefined || text.trim() === '') return fail('MissingInlineConfig', 'spec.config is empty', { object });
  const parsed = parseStrictJson(text, GO_STRICT_JSON);
  if (!parsed.ok) {
    const { kind, message } = parsed.error;
    if (kind === 'duplicate-key') return fail('DuplicateCniKey', `${message}; Go's encoding/json reads such keys as one field`, { object });
    if (kind === 'number-range') return fail('MalformedCniConfig', `${message}, so Multus cannot decode the configuration`, { object });
    return fail('MalformedCniConfig', message, { object });
  }
  const root = parsed.value;
  if (!isJsonObject(root)) return fail('MalformedCniConfig', `the configuration must be a JSON object, not ${describe(root)}`, { object });
  const decodable = checkGoDecodable(root, object);
  if (!decodable.ok) return decodable;

  const version = root.get('cniVersion');
  if (typeof version !== 'string') return fail('MalformedCniConfig', `cniVersion must be a string, found ${describe(version)}`, { object });
  if (!SUPPORTED_CNI_VERSIONS.includes(version))
    return fail('UnsupportedCniVersion', `cniVersion ${JSON.stringify(version)} is not one of ${SUPPORTED_CNI_VERSIONS.join(', ')}`, { object });

  const name = root.get('name');
  if (name !== undefined && typeof name !== 'string') return fail('MalformedCniConfig', `name must be a string, found ${describe(name)}`, { object });
  const effectiveName = effectiveCniName(name, source.metadata.name);
  if (!isCniNetworkName(effectiveName)) return fail('MalformedCniConfig', `CNI network name ${JSON.stringify(effectiveName)} is invalid`, { object });

  const located = locateSriovPlugin(root, object);
  if (!located.ok) return located;
  const { sriov, pluginIndex, metaplugins } = located.value;

  for (const plugin of [sriov, ...metaplugins]) {
    const ipamProblem = unsupportedIpam(plugin.get('ipam'));
    if (ipamProblem !== undefined) return fail('UnsupportedIpamMode', ipamProblem, { object });
  }
  for (const [index, plugin] of metaplugins.entries()) {
    for (const key of ['deviceID', 'pciBusID']) {
      const value = plugin.get(key);
      if (value !== undefined && value !== null && value !== '') {
        return fail('ConflictingDeviceID', `metaplugin plugins[${(pluginIndex ?? 0) + index + 1}] carries ${key}; only the sriov entry may name a device`, {
          object,
        });
      }
    }
  }
  for (const key of ['deviceID', 'pciBusID']) {
    const existing = sriov.get(key);
    // Go reads null as unset, like an absent key or "".
    if (existing === undefined || existing === null || existing === '') continue;
    const normalized = typeof existing === 'string' ? normalizePciAddress(existing) : undefined;
    if (normalized === undefined || !normalized.ok || normalized.value !== pci.value) {
      return fail('ConflictingDeviceID', `the sriov plugin names ${key} ${serializeJson(existing)} but the allocated VF is ${pci.value}`, { object });
    }
    // Kept for compatibility, in canonical form, at the sriov entry only.
    sriov.set(key, pci.value);
  }
  sriov.set('deviceID', pci.value);

  const rendered = materializeName(root, effectiveName);
  const bytes = serializeJson(rendered);
  return ok({ bytes, sha256: createHash('sha256').update(bytes).digest('hex'), effectiveName, pluginIndex, pluginType: SRIOV_PLUGIN_TYPE });
}

/** Puts the effective name at its place: where the source had it, else right after cniVersion. */
function materializeName(root: JsonObject, name: string): JsonObject {
  if (root.has('name')) {
    root.set('name', name);
    return root;
  }
  const out: JsonObject = new Map();
  for (const [key, value] of root) {
    out.set(key, value);
    if (key === 'cniVersion') out.set('name', name);
  }
  return out;
}

interface LocatedSriov {
  readonly sriov: JsonObject;
  readonly pluginIndex: number | null;
  readonly metaplugins: readonly JsonObject[];
}

function locateSriovPlugin(root: JsonObject, object: ObjectRef): Result<LocatedSriov> {
  const type = root.get('type');
  const plugins = root.get('plugins');
  if (type !== undefined && plugins !== undefined) {
    return fail('UnsupportedCniTopology', 'the configuration has both a root type and plugins; Multus would pick the single-plugin path', { object });
  }
  if (type !== undefined) {
    if (type !== SRIOV_PLUGIN_TYPE) return fail('UnsupportedCniTopology', `the single plugin is ${JSON.stringify(type)}, not sriov`, { object });
    return ok({ sriov: root, pluginIndex: null, metaplugins: [] });
  }
  for (const key of ['deviceID', 'pciBusID']) {
    // A conflist's root is not a plugin: a device named there reaches no plugin through libcni, yet reads as one.
    if (root.has(key)) return fail('ConflictingDeviceID', `the conflist root carries ${key}; only the sriov entry may name a device`, { object });
  }
  if (!Array.isArray(plugins) || plugins.length === 0)
    return fail('MalformedCniConfig', `a configuration without a root type needs a nonempty plugins list, found ${describe(plugins)}`, { object });
  const entries: JsonObject[] = [];
  for (const [index, plugin] of plugins.entries()) {
    if (!isJsonObject(plugin)) return fail('MalformedCniConfig', `plugins[${index}] must be an object, found ${describe(plugin)}`, { object });
    const pluginType = plugin.get('type');
    if (typeof pluginType !== 'string' || pluginType === '') return fail('MalformedCniConfig', `plugins[${index}].type must be a nonempty string`, { object });
    entries.push(plugin);
  }
  const sriovCount = entries.filter((plugin) => plugin.get('type') === SRIOV_PLUGIN_TYPE).length;
  if (sriovCount !== 1) return fail('UnsupportedCniTopology', `a conflist needs exactly one sriov plugin, found ${sriovCount}`, { object });
  const [first, ...rest] = entries as [JsonObject, ...JsonObject[]];
  if (first.get('type') !== SRIOV_PLUGIN_TYPE)
    return fail('UnsupportedCniTopology', `the sriov plugin must be the first entry, found ${JSON.stringify(first.get('type'))} first`, { object });
  for (const [index, plugin] of rest.entries()) {
    const pluginType = plugin.get('type') as string;
    if (!METAPLUGIN_ALLOWLIST.includes(pluginType)) {
      return fail(
        'UnsupportedCniTopology',
        `plugins[${index + 1}] is ${JSON.stringify(pluginType)}; only ${METAPLUGIN_ALLOWLIST.join(', ')} may follow sriov`,
        { object },
      );
    }
  }
  return ok({ sriov: first, pluginIndex: 0, metaplugins: rest });
}

/** Whereabouts fast node slices have their own NAD-watching lifecycle and are outside this mode (§7.1). */
function unsupportedIpam(ipam: JsonValue | undefined): string | undefined {
  if (!isJsonObject(ipam) || ipam.get('type') !== 'whereabouts') return undefined;
  const slice = ipam.get('node_slice_size');
  if (slice === undefined || slice === null || slice === '' || slice === false) return undefined;
  return `whereabouts node_slice_size ${serializeJson(slice)} enables fast node slices`;
}
