import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { CniInvocationError } from '../cni/cni-error.ts';
import { resultsDirectory } from '../cni/result-cache.ts';
import type { GcAttachment, NetworkCommandOptions } from '../cni/status-gc.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import { type ClusterNetworkSettings, readyClusterNetwork } from './status.ts';

export interface GcSettings extends ClusterNetworkSettings {
  /** libcni's result cache directory of the delegates: its entries are the attachments still in use. */
  readonly resultCacheDir: string;
}

export interface GcEffects {
  readonly reader: PodNetworkReader;
  gcNetwork(bytes: Uint8Array, cacheDir: string, valid: readonly GcAttachment[], options: Required<NetworkCommandOptions>): Promise<void>;
  readonly logger: Logger;
}

// Multus reads only these two fields of each entry, whatever its kind.
const attachmentSchema = z.object({ containerId: z.string().nullish(), ifName: z.string().nullish() });

/**
 * Multus's gatherValidAttachmentsFromCache: every entry of the delegates' result cache names an
 * attachment still in use, of whichever network. An entry that cannot be read or names no container or
 * interface is logged and passed over; a directory that cannot be listed fails GC, as upstream.
 */
export async function gatherValidAttachments(resultCacheDir: string, logger: Logger): Promise<GcAttachment[]> {
  const directory = resultsDirectory(resultCacheDir);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    throw new CniInvocationError('ResultCacheIoFailed', { network: '<any>' }, `cannot list the result cache ${directory} for GC: ${String(error)}`, error);
  }
  const valid: GcAttachment[] = [];
  for (const name of names.sort()) {
    const path = join(directory, name);
    let document: unknown;
    try {
      document = JSON.parse(await readFile(path, 'utf8')) as unknown;
    } catch (error) {
      logger.warn({ err: error, path }, 'GC: result cache entry unreadable; not counted as a valid attachment');
      continue;
    }
    const entry = attachmentSchema.safeParse(document);
    if (!entry.success || !entry.data.containerId || !entry.data.ifName) {
      logger.warn({ path }, 'GC: result cache entry names no container and interface; not counted as a valid attachment');
      continue;
    }
    valid.push({ containerID: entry.data.containerId, ifName: entry.data.ifName });
  }
  return valid;
}

/**
 * CNI GC (Multus's CmdGC): the readiness indicator, then libcni GC on the cluster network with every
 * attachment in the delegates' result cache as valid. The plugins of that network release what belongs to
 * no valid attachment (host-local its leases); the networks Pods select are not garbage-collected.
 */
export async function runGc(settings: GcSettings, effects: GcEffects, signal: AbortSignal): Promise<void> {
  const network = await readyClusterNetwork(settings, effects.reader, signal);
  const valid = await gatherValidAttachments(settings.resultCacheDir, effects.logger);
  effects.logger.info({ network: network.name, valid: valid.length }, 'GC of the cluster network');
  await effects.gcNetwork(network.bytes, settings.resultCacheDir, valid, {
    binDirs: settings.binDirs,
    chrootDir: settings.chrootDir,
    timeoutMs: settings.delegateTimeoutMs,
    signal,
  });
}
