import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { removeFileDurably, writeFileAtomic } from '@sriov-dra/durable-files';
import { CniInvocationError } from './cni-error.ts';
import type { NetworkConfig } from './network-config.ts';
import { type CniResult, convertResult } from './result-version.ts';
import type { RuntimeConf } from './runtime-conf.ts';

/**
 * libcni's result cache (cachedInfo, kind cniCacheV1): after a successful ADD the network's exact
 * configuration, the runtime data and the final result are stored per attachment, so DEL and CHECK can
 * give the plugins the ADD result as prevResult. The file format is libcni's, so libcni (and tools built
 * on it) read these files and this daemon reads theirs.
 */
export const CACHE_KIND = 'cniCacheV1';

/** `<cacheDir>/results`: every attachment's entry, of every network, is a file here. */
export function resultsDirectory(cacheDir: string): string {
  return join(cacheDir, 'results');
}

/** `<cacheDir>/results/<networkName>-<containerID>-<ifName>`, libcni's path. */
export function cacheFilePath(network: string, rt: RuntimeConf): string {
  return join(resultsDirectory(rt.cacheDir), `${network}-${rt.containerID}-${rt.ifName}`);
}

/** The file's bytes, with the fields in libcni's order and its omitempty rules. */
export function serializeCacheEntry(network: NetworkConfig, rt: RuntimeConf, result: CniResult, capabilityArgs: Readonly<Record<string, unknown>>): string {
  const entry: Record<string, unknown> = {
    kind: CACHE_KIND,
    containerId: rt.containerID,
    config: Buffer.from(network.bytes).toString('base64'),
    ifName: rt.ifName,
    networkName: network.name,
  };
  if (rt.netns !== '') entry['netns'] = rt.netns;
  if (rt.args.length > 0) entry['cniArgs'] = rt.args;
  if (Object.keys(capabilityArgs).length > 0) entry['capabilityArgs'] = capabilityArgs;
  entry['result'] = result;
  return JSON.stringify(entry);
}

const cacheEntrySchema = z.object({ kind: z.literal(CACHE_KIND), result: z.record(z.string(), z.unknown()) });

function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

/**
 * Stores the ADD result atomically (temporary file, rename) but unflushed, as libcni writes it unflushed: the
 * entry only feeds prevResult to CHECK and DEL and GC's list of valid attachments, every plugin must cope
 * with a DEL that has none, and two flushes per delegate would sit on every ADD's critical path.
 */
export async function writeCachedResult(
  network: NetworkConfig,
  rt: RuntimeConf,
  result: CniResult,
  capabilityArgs: Readonly<Record<string, unknown>>,
): Promise<void> {
  const path = cacheFilePath(network.name, rt);
  try {
    // Atomic, through a hidden temporary file: libcni's scan of results/ (GetCachedAttachments) never reads a
    // half-written entry.
    await writeFileAtomic(path, serializeCacheEntry(network, rt, result, capabilityArgs), { createDirectoryMode: 0o700, flush: false });
  } catch (error) {
    throw new CniInvocationError('ResultCacheIoFailed', { network: network.name }, `cannot write the cached result ${path}: ${String(error)}`, error);
  }
}

/**
 * The cached ADD result in the network's cniVersion (libcni converts it, so a plugin gets prevResult in
 * the version of its configuration), or undefined when there is none. A file that is not a libcni
 * cache entry with a valid result is refused and left in place.
 */
export async function readCachedResult(network: NetworkConfig, rt: RuntimeConf): Promise<CniResult | undefined> {
  const path = cacheFilePath(network.name, rt);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw new CniInvocationError('ResultCacheIoFailed', { network: network.name }, `cannot read the cached result ${path}: ${String(error)}`, error);
  }
  const corrupt = (problem: string): CniInvocationError => new CniInvocationError('CorruptResultCache', { network: network.name }, `${path}: ${problem}`);
  let document: unknown;
  try {
    document = JSON.parse(text) as unknown;
  } catch (error) {
    throw corrupt(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const entry = cacheEntrySchema.safeParse(document);
  if (!entry.success) throw corrupt(`not a ${CACHE_KIND} entry with a result object`);
  const converted = convertResult(entry.data.result as CniResult, network.cniVersion);
  if (!converted.ok) throw corrupt(`the cached result is invalid: ${converted.problem}`);
  return converted.result;
}

/** Removes the entry after a successful DEL; a missing file is already the desired state. */
export async function removeCachedResult(network: NetworkConfig, rt: RuntimeConf): Promise<void> {
  const path = cacheFilePath(network.name, rt);
  try {
    await removeFileDurably(path);
  } catch (error) {
    throw new CniInvocationError('ResultCacheIoFailed', { network: network.name }, `cannot remove the cached result ${path}: ${String(error)}`, error);
  }
}
