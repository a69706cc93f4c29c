import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DelegateCacheError } from './delegate-cache-error.ts';
import { type DelegateRecord, decodeDelegates, encodeDelegates } from './delegate-codec.ts';
import { removeFileDurably, writeFileAtomic } from '@sriov-dra/durable-files';

/**
 * The Multus delegate cache, <cniDir>/<containerID> (§11): the delegates of one sandbox with their exact
 * configuration bytes, in upstream multus v4.2.3's format so that upstream Multus and this daemon can
 * each DEL what the other added. Unlike upstream, the file is replaced atomically and durably, so a
 * crash leaves the previous file or the new one — never a torn file that turns DEL into an IPAM leak.
 *
 * ADD saves before the first delegate runs; DEL loads, runs, and removes only after it succeeded.
 */

// CNI spec: a container ID is [a-zA-Z0-9][a-zA-Z0-9_.-]*, which also keeps it one path component.
const CONTAINER_ID = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** Whether a name in the cache directory is a container's delegate cache (the directory also holds results/). */
export function isContainerID(name: string): boolean {
  return CONTAINER_ID.test(name);
}

export function delegateCachePath(cniDir: string, containerID: string): string {
  if (!isContainerID(containerID)) {
    throw new DelegateCacheError('InvalidContainerID', JSON.stringify(containerID), 'not a CNI container ID');
  }
  return join(cniDir, containerID);
}

export async function saveDelegates(cniDir: string, containerID: string, delegates: readonly DelegateRecord[]): Promise<void> {
  const path = delegateCachePath(cniDir, containerID);
  const data = encodeDelegates(delegates);
  try {
    await writeFileAtomic(path, data, { createDirectoryMode: 0o700 });
  } catch (error) {
    throw new DelegateCacheError('DelegateCacheIoFailed', path, `could not write the delegate cache: ${(error as Error).message}`, error);
  }
}

/** The cached delegates in ADD order, or undefined when this container has no cache file. */
export async function loadDelegates(cniDir: string, containerID: string): Promise<DelegateRecord[] | undefined> {
  const path = delegateCachePath(cniDir, containerID);
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DelegateCacheError('DelegateCacheIoFailed', path, `could not read the delegate cache: ${(error as Error).message}`, error);
  }
  return decodeDelegates(data, path);
}

/** Removes the cache after a successful DEL; false when there was none. */
export async function removeDelegates(cniDir: string, containerID: string): Promise<boolean> {
  const path = delegateCachePath(cniDir, containerID);
  try {
    return await removeFileDurably(path);
  } catch (error) {
    throw new DelegateCacheError('DelegateCacheIoFailed', path, `could not remove the delegate cache: ${(error as Error).message}`, error);
  }
}
