import { type JsonObject, type JsonValue, isJsonObject, parseStrictJson, serializeJson } from '@sriov-dra/contract';
import type { NetworkConfig, PluginConfig } from './network-config.ts';
import type { CniResult } from './result-version.ts';

/** Plain JSON data (a result, capability arguments) as a lossless JSON value; undefined if not JSON. */
export function toJsonValue(value: Readonly<Record<string, unknown>>): JsonValue | undefined {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  const parsed = parseStrictJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The capability arguments as a JSON object, or undefined when some value is not JSON data. */
export function capabilityArgsJson(capabilityArgs: Readonly<Record<string, unknown>>): JsonObject | undefined {
  const value = toJsonValue(capabilityArgs);
  return isJsonObject(value) ? value : undefined;
}

/**
 * The stdin of one plugin, by libcni's buildOneConfig and injectRuntimeConfig: the plugin's own object
 * with the network's `name` and `cniVersion` set over its own, `prevResult` set when there is one, and
 * `runtimeConfig` set to exactly the capability arguments whose capability the plugin declares true —
 * set only when at least one matches, so otherwise the plugin's own runtimeConfig (if any) stays.
 * Every other key keeps its exact text; a key that is set keeps its place, a new key goes last.
 */
export function pluginStdin(network: NetworkConfig, plugin: PluginConfig, prevResult: CniResult | undefined, capabilityArgs: JsonObject): string {
  const config: JsonObject = new Map(plugin.raw);
  config.set('name', network.name);
  config.set('cniVersion', network.cniVersion);
  if (prevResult !== undefined) {
    const value = toJsonValue(prevResult);
    if (value !== undefined) config.set('prevResult', value);
  }
  const runtimeConfig: JsonObject = new Map();
  for (const capability of plugin.capabilities) {
    const value = capabilityArgs.get(capability);
    if (value !== undefined) runtimeConfig.set(capability, value);
  }
  if (runtimeConfig.size > 0) config.set('runtimeConfig', runtimeConfig);
  return serializeJson(config);
}
