import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { JsonObject, JsonValue } from '@sriov-dra/contract';
import { CniInvocationError } from './cni-error.ts';
import { type NetworkConfig, type PluginConfig, parseNetworkConfig } from './network-config.ts';
import { execPlugin } from './plugin-exec.ts';
import { capabilityArgsJson, pluginStdin } from './plugin-stdin.ts';
import { CACHE_KIND, readCachedResult, removeCachedResult, resultsDirectory } from './result-cache.ts';
import type { CniResult } from './result-version.ts';
import type { RuntimeConf } from './runtime-conf.ts';

/**
 * STATUS and GC of one network with libcni's semantics (GetStatusNetworkList and GCNetworkList of libcni
 * v1.3.0), which is what Multus runs on its cluster network. Both act on the network, not on an
 * attachment: the plugins get no container, netns, interface or CNI_ARGS.
 */
export interface NetworkCommandOptions {
  /** CNI_PATH: the directories searched, in order, for each plugin type. */
  readonly binDirs: readonly string[];
  /** daemon-config.json's chrootDir: the root directory every plugin runs in; absent or '' for the daemon's own. */
  readonly chrootDir?: string;
  /** The deadline of the whole operation; a plugin still running then is killed. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** An attachment GC must leave alone (libcni's GCAttachment). */
export interface GcAttachment {
  readonly containerID: string;
  readonly ifName: string;
}

/** Some of GC's work failed; every stale attachment and every plugin was still attempted, as libcni does. */
export class NetworkGcError extends Error {
  override readonly name = 'NetworkGcError';
  readonly code = 'NetworkGcFailed';
  readonly network: string;
  readonly failures: readonly Error[];

  constructor(network: string, failures: readonly Error[]) {
    super(`GC of network ${JSON.stringify(network)} failed ${String(failures.length)} time(s): ${failures.map((failure) => failure.message).join('; ')}`);
    this.network = network;
    this.failures = failures;
  }
}

/** STATUS and GC came with spec 1.1.0; a network of an older cniVersion gets neither (its version is x.y.z). */
function knowsStatusAndGc(network: NetworkConfig): boolean {
  const [major = 0, minor = 0] = network.cniVersion.split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 1);
}

/**
 * libcni reads the network with ConfListFromBytes: a single-plugin configuration is a list without
 * plugins there, so STATUS and GC run none of it (and upstream Multus behaves so).
 */
function listPlugins(network: NetworkConfig): readonly PluginConfig[] {
  return network.kind === 'conflist' ? network.plugins : [];
}

function deadline(network: NetworkConfig, options: NetworkCommandOptions): AbortSignal {
  if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new CniInvocationError(
      'InvalidRuntimeConf',
      { network: network.name },
      `the deadline must be a positive whole number of milliseconds, found ${options.timeoutMs}`,
    );
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  return options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
}

/** No container, netns, interface or CNI_ARGS: STATUS and GC address the network as a whole. */
const NETWORK_WIDE: RuntimeConf = { containerID: '', netns: '', ifName: '', args: [], capabilityArgs: {}, cacheDir: '' };
const NO_CAPABILITIES: JsonObject = new Map();

/**
 * libcni's GetStatusNetworkList: each plugin in order gets STATUS with the network's name and cniVersion
 * set in its configuration; the first failure is the answer. A network older than 1.1.0 is not asked.
 */
export async function statusNetwork(configBytes: Uint8Array, options: NetworkCommandOptions): Promise<void> {
  const network = parseNetworkConfig(configBytes);
  const signal = deadline(network, options);
  if (!knowsStatusAndGc(network)) return;
  for (const plugin of listPlugins(network)) {
    await execPlugin({
      command: 'STATUS',
      network: network.name,
      pluginType: plugin.type,
      configVersion: network.cniVersion,
      stdin: pluginStdin(network, plugin, undefined, NO_CAPABILITIES),
      rt: NETWORK_WIDE,
      binDirs: options.binDirs,
      chrootDir: options.chrootDir ?? '',
      signal,
    });
  }
}

/** One attachment as libcni's cache lists it (GetCachedAttachments). */
interface CachedAttachment {
  readonly network: string;
  readonly rt: RuntimeConf;
}

// The fields GetCachedAttachments decodes; an entry Go could not decode into them is passed over.
const cachedEntrySchema = z.object({
  kind: z.string().nullish(),
  containerId: z.string().nullish(),
  ifName: z.string().nullish(),
  networkName: z.string().nullish(),
  netns: z.string().nullish(),
  cniArgs: z.array(z.tuple([z.string(), z.string()])).nullish(),
  capabilityArgs: z.record(z.string(), z.unknown()).nullish(),
});

async function readEntry(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * libcni's GetCachedAttachments: every readable cniCacheV1 entry naming a network and an interface, in
 * file name order; the others are passed over. A missing directory is an empty cache.
 */
async function cachedAttachments(cacheDir: string): Promise<CachedAttachment[]> {
  const directory = resultsDirectory(cacheDir);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CniInvocationError('ResultCacheIoFailed', { network: '<any>' }, `cannot list the result cache ${directory}: ${String(error)}`, error);
  }
  const attachments: CachedAttachment[] = [];
  for (const name of names.sort()) {
    const parsed = cachedEntrySchema.safeParse(await readEntry(join(directory, name)));
    if (!parsed.success) continue;
    const entry = parsed.data;
    if (entry.kind !== CACHE_KIND || !entry.ifName || !entry.networkName) continue;
    attachments.push({
      network: entry.networkName,
      rt: {
        containerID: entry.containerId ?? '',
        netns: entry.netns ?? '',
        ifName: entry.ifName,
        args: entry.cniArgs ?? [],
        capabilityArgs: entry.capabilityArgs ?? {},
        cacheDir,
      },
    });
  }
  return attachments;
}

/**
 * libcni's DelNetworkList as GC issues it for a stale attachment: the current configuration's plugins in
 * reverse with the cached result as prevResult — an unreadable entry is dropped and the DEL goes on
 * without one — and the entry removed once every plugin succeeded.
 */
async function deleteStale(network: NetworkConfig, rt: RuntimeConf, options: NetworkCommandOptions, signal: AbortSignal): Promise<void> {
  let cached: CniResult | undefined;
  try {
    cached = await readCachedResult(network, rt);
  } catch {
    await removeCachedResult(network, rt);
  }
  const capabilityArgs = capabilityArgsJson(rt.capabilityArgs) ?? NO_CAPABILITIES;
  for (const plugin of listPlugins(network).toReversed()) {
    await execPlugin({
      command: 'DEL',
      network: network.name,
      pluginType: plugin.type,
      configVersion: network.cniVersion,
      stdin: pluginStdin(network, plugin, cached, capabilityArgs),
      rt,
      binDirs: options.binDirs,
      chrootDir: options.chrootDir ?? '',
      signal,
    });
  }
  await removeCachedResult(network, rt);
}

function attachmentsJson(valid: readonly GcAttachment[]): JsonValue {
  return valid.map(
    (attachment): JsonObject =>
      new Map<string, JsonValue>([
        ['containerID', attachment.containerID],
        ['ifname', attachment.ifName],
      ]),
  );
}

/**
 * libcni's GCNetworkList. Unless the list sets disableGC: every attachment of this network in the result
 * cache that is not among `valid` is deleted (stale), then — for a network of cniVersion 1.1.0 or later —
 * each plugin gets GC with the valid attachments in `cni.dev/valid-attachments` (and in
 * `cni.dev/attachments`, the spelling an earlier spec text used). Every step is attempted; the failures
 * are reported together.
 */
export async function gcNetwork(configBytes: Uint8Array, cacheDir: string, valid: readonly GcAttachment[], options: NetworkCommandOptions): Promise<void> {
  const network = parseNetworkConfig(configBytes);
  const signal = deadline(network, options);
  if (network.disableGC) return;
  const failures: Error[] = [];
  const isValid = (rt: RuntimeConf): boolean => valid.some((attachment) => attachment.containerID === rt.containerID && attachment.ifName === rt.ifName);
  for (const attachment of await cachedAttachments(cacheDir)) {
    if (attachment.network !== network.name || isValid(attachment.rt)) continue;
    try {
      await deleteStale(network, attachment.rt, options, signal);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      failures.push(new Error(`failed to delete stale attachment ${attachment.rt.containerID} ${attachment.rt.ifName}: ${detail}`, { cause: error }));
    }
  }
  if (knowsStatusAndGc(network)) {
    const attachments = attachmentsJson(valid);
    for (const plugin of listPlugins(network)) {
      const raw: JsonObject = new Map(plugin.raw);
      raw.set('cni.dev/valid-attachments', attachments);
      raw.set('cni.dev/attachments', attachments);
      try {
        await execPlugin({
          command: 'GC',
          network: network.name,
          pluginType: plugin.type,
          configVersion: network.cniVersion,
          stdin: pluginStdin(network, { ...plugin, raw }, undefined, NO_CAPABILITIES),
          rt: NETWORK_WIDE,
          binDirs: options.binDirs,
          chrootDir: options.chrootDir ?? '',
          signal,
        });
      } catch (error) {
        failures.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
  if (failures.length > 0) throw new NetworkGcError(network.name, failures);
}
