import fs from 'node:fs/promises';
import path from 'node:path';
import { type SysfsResult, found, sysfsFailure } from './sysfs-error.ts';

/**
 * Read access to sysfs, by path relative to its root (`bus/pci/devices/0000:3b:00.0/vendor`). Everything
 * discovery learns from the kernel goes through this interface, so a fake tree in a temporary directory can
 * stand in for /sys, and every failure names the absolute path it concerns.
 */
export interface Sysfs {
  /** Absolute path of a root-relative entry, for messages. */
  describe(relative: string): string;
  readText(relative: string): Promise<SysfsResult<string>>;
  /** Names in a directory, sorted (the kernel's order is not stable across reboots). */
  list(relative: string): Promise<SysfsResult<string[]>>;
  /** The target of a link as written, without following it. */
  readLink(relative: string): Promise<SysfsResult<string>>;
  /** The root-relative real path an entry resolves to, following every link. */
  resolve(relative: string): Promise<SysfsResult<string>>;
  /** What sits at a path without following a final link: a dangling link is distinguished from nothing. */
  kind(relative: string): Promise<EntryKind>;
}

export type EntryKind = 'missing' | 'dangling-link' | 'link' | 'directory' | 'file';

export const DEFAULT_SYSFS_ROOT = '/sys';

// Duck-typed: errors from node:fs may come from another realm (a test VM), where instanceof Error fails.
function errnoOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Sysfs over a directory tree: /sys on a host, or a generated fake tree in tests. */
export function createSysfs(root: string = DEFAULT_SYSFS_ROOT): Sysfs {
  // Entries are named by discovery with normalized relative paths, so appending them to the root normalized
  // once gives what path.join would. path.join builds its result from a string per path element, and every
  // path of a scan stays alive until the scan ends: per scan of 256 VFs, some 2 MiB of them reached the old
  // generation.
  const prefix = path.join(root, '/');
  const absolute = (relative: string): string => `${prefix}${relative}`;
  async function attempt<T>(relative: string, operation: (at: string) => Promise<T>): Promise<SysfsResult<T>> {
    const at = absolute(relative);
    try {
      return found(await operation(at));
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ENOENT' || errno === 'ENOTDIR') return sysfsFailure('SysfsEntryMissing', at, 'does not exist', error);
      return sysfsFailure('SysfsUnreadable', at, `cannot be read (${errno ?? String(error)})`, error);
    }
  }
  return {
    describe: absolute,
    readText: (relative) => attempt(relative, (at) => fs.readFile(at, 'utf8')),
    list: (relative) => attempt(relative, async (at) => (await fs.readdir(at)).sort()),
    readLink: (relative) => attempt(relative, (at) => fs.readlink(at)),
    resolve: (relative) =>
      attempt(relative, async (at) => {
        // Relative to the real root, so a root that is itself reached through a link still compares.
        return path.relative(await fs.realpath(root), await fs.realpath(at));
      }),
    async kind(relative) {
      const at = absolute(relative);
      try {
        const entry = await fs.lstat(at);
        if (!entry.isSymbolicLink()) return entry.isDirectory() ? 'directory' : 'file';
      } catch {
        return 'missing';
      }
      try {
        await fs.stat(at);
        return 'link';
      } catch {
        return 'dangling-link';
      }
    },
  };
}
