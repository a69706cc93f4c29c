import { basename } from 'node:path';
import { removeAbandonedTemporaries } from '@sriov-dra/durable-files';
import type { DaemonConfig } from '../daemon-config.ts';
import { ENTRY_CONFIG_FILE } from '../entry-config/entry-config.ts';
import { resultsDirectory } from '../cni/result-cache.ts';
import { teardownStateDirectories } from '../teardown/teardown-store.ts';
import { isContainerID } from './delegate-cache.ts';

export interface AbandonedWrites {
  readonly directory: string;
  readonly files: readonly string[];
}

/**
 * Removes the temporary files a daemon killed mid-write left behind: in the delegate cache and beside it
 * in the teardown records, in the libcni result cache, and in the runtime's CNI configuration directory
 * (the entry configuration's only, since other components write there too). Runs at startup before the daemon writes anything; a live write's
 * temporary file looks the same. Directories named only by a request's shim configuration are not known
 * here; their leftovers stay, as harmless hidden files no reader loads.
 */
export async function removeAbandonedWrites(config: DaemonConfig, resultCacheDir: string | undefined): Promise<AbandonedWrites[]> {
  // The generated file, or the user's copied in under its base name.
  const entryConfig = config.multusConfigFile === 'auto' ? ENTRY_CONFIG_FILE : basename(config.multusConfigFile);
  const sweeps: [string, (target: string) => boolean][] = [
    [config.cniDir, isContainerID],
    // The daemon's teardown records: directories of their own beside the delegate cache.
    ...Object.values(teardownStateDirectories(config.cniDir)).map((directory): [string, (target: string) => boolean] => [directory, () => true]),
    [resultsDirectory(resultCacheDir ?? config.cniDir), () => true],
    [config.cniConfigDir, (target) => target === entryConfig],
  ];
  const removed: AbandonedWrites[] = [];
  for (const [directory, owns] of sweeps) {
    const files = await removeAbandonedTemporaries(directory, owns);
    if (files.length > 0) removed.push({ directory, files });
  }
  return removed;
}
