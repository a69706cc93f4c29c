import type { JsonObject } from '@sriov-dra/contract';
import { CniInvocationError } from './cni-error.ts';
import { type NetworkConfig, type PluginConfig, parseNetworkConfig } from './network-config.ts';
import { execPlugin } from './plugin-exec.ts';
import { capabilityArgsJson, pluginStdin } from './plugin-stdin.ts';
import { readCachedResult, removeCachedResult, writeCachedResult } from './result-cache.ts';
import type { CniResult } from './result-version.ts';
import { type RuntimeConf, runtimeConfProblem } from './runtime-conf.ts';

/**
 * ADD, CHECK and DEL of one delegate network (a single plugin or a conflist) with libcni's semantics
 * (AddNetwork[List], CheckNetwork[List], DelNetwork[List] of libcni v1.3.0), which is what Multus runs
 * for each delegate. Every failure is a CniInvocationError or a CniPluginError.
 */
export interface InvokeOptions {
  /** CNI_PATH: the directories searched, in order, for each plugin type. */
  readonly binDirs: readonly string[];
  /** daemon-config.json's chrootDir: the root directory every plugin runs in; absent or '' for the daemon's own. */
  readonly chrootDir?: string;
  /** The deadline of the whole operation, over all its plugins; a plugin still running then is killed. */
  readonly timeoutMs: number;
  /** Cancels the operation; the running plugin is killed. */
  readonly signal?: AbortSignal;
}

interface Operation {
  readonly network: NetworkConfig;
  readonly capabilityArgs: JsonObject;
  readonly signal: AbortSignal;
}

function prepare(configBytes: Uint8Array, rt: RuntimeConf, options: InvokeOptions): Operation {
  const network = parseNetworkConfig(configBytes);
  const subject = { network: network.name };
  if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new CniInvocationError('InvalidRuntimeConf', subject, `the deadline must be a positive whole number of milliseconds, found ${options.timeoutMs}`);
  }
  const capabilityArgs = capabilityArgsJson(rt.capabilityArgs);
  if (capabilityArgs === undefined)
    throw new CniInvocationError('InvalidRuntimeConf', subject, 'capabilityArgs must be JSON data (no functions, BigInts or cycles)');
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  return { network, capabilityArgs, signal };
}

function pluginCall(operation: Operation, plugin: PluginConfig, prevResult: CniResult | undefined, rt: RuntimeConf, options: InvokeOptions) {
  const { network } = operation;
  return {
    network: network.name,
    pluginType: plugin.type,
    configVersion: network.cniVersion,
    stdin: pluginStdin(network, plugin, prevResult, operation.capabilityArgs),
    rt,
    binDirs: options.binDirs,
    chrootDir: options.chrootDir ?? '',
    signal: operation.signal,
  };
}

/**
 * Runs the plugins in order, each given the previous plugin's result as prevResult, caches the final
 * result and returns it (canonical JSON in the version the last plugin answered with).
 */
export async function addNetwork(configBytes: Uint8Array, rt: RuntimeConf, options: InvokeOptions): Promise<CniResult> {
  const operation = prepare(configBytes, rt, options);
  const problem = runtimeConfProblem(rt);
  if (problem !== undefined) throw new CniInvocationError('InvalidRuntimeConf', { network: operation.network.name }, problem);
  let result: CniResult | undefined;
  for (const plugin of operation.network.plugins) {
    result = await execPlugin({ ...pluginCall(operation, plugin, result, rt, options), command: 'ADD' });
  }
  // A network has at least one plugin, so the loop has set the result.
  await writeCachedResult(operation.network, rt, result as CniResult, rt.capabilityArgs);
  return result as CniResult;
}

/** Runs CHECK on every plugin in order with the cached ADD result as prevResult; a conflist may disable it. */
export async function checkNetwork(configBytes: Uint8Array, rt: RuntimeConf, options: InvokeOptions): Promise<void> {
  const operation = prepare(configBytes, rt, options);
  if (operation.network.disableCheck) return;
  const cached = await readCachedResult(operation.network, rt);
  for (const plugin of operation.network.plugins) {
    await execPlugin({ ...pluginCall(operation, plugin, cached, rt, options), command: 'CHECK' });
  }
}

/**
 * Runs DEL on the plugins in reverse order with the cached ADD result as prevResult, stopping at the
 * first failure as libcni does (the cache then stays, so a retried DEL sees the same prevResult), and
 * removes the cache entry once every plugin succeeded. An unreadable cache entry fails the DEL and is
 * kept for inspection.
 */
export async function delNetwork(configBytes: Uint8Array, rt: RuntimeConf, options: InvokeOptions): Promise<void> {
  const operation = prepare(configBytes, rt, options);
  const cached = await readCachedResult(operation.network, rt);
  for (const plugin of operation.network.plugins.toReversed()) {
    await execPlugin({ ...pluginCall(operation, plugin, cached, rt, options), command: 'DEL' });
  }
  await removeCachedResult(operation.network, rt);
}
