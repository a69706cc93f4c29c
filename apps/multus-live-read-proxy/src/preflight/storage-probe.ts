import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { StorageFacts } from './checks.ts';
import { type Mount, mountOf } from './mountinfo.ts';

/** The directory itself, or the nearest ancestor that exists (the daemon creates the rest on first use). */
async function nearestExisting(path: string): Promise<string> {
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      if ((await stat(current)).isDirectory()) return await realpath(current);
    } catch {
      // Not there yet: its parent decides where it will live.
    }
    if (current === dirname(current)) return current;
  }
}

/** Where a cache directory lives (filesystem type, mount point) and whether this process may write there. */
export async function probeStorage(id: StorageFacts['id'], what: string, path: string, mounts: readonly Mount[], delegateRoot?: string): Promise<StorageFacts> {
  const existing = await nearestExisting(path);
  const mount = mountOf(mounts, existing);
  let writable = true;
  try {
    await access(existing, constants.W_OK);
  } catch {
    writable = false;
  }
  const facts = { id, what, path, fsType: mount?.fsType, mountPoint: mount?.mountPoint, writable: writable && !(mount?.options.includes('ro') ?? false) };
  return delegateRoot === undefined ? facts : { ...facts, delegateRoot };
}
