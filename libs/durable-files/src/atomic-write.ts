import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Durable file replacement for state that must survive a crash or power loss (the driver's checkpoint and
 * CDI specs, the Multus daemon's delegate cache); with `flush: false`, atomic replacement alone (libcni's
 * result cache).
 * Readers see either the previous file or the new one, never a torn write: the bytes go to a temporary
 * file in the same directory (rename is atomic only within one filesystem), are flushed to disk, and the
 * rename is then made durable by flushing the directory entry itself.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: {
    /** Create missing directories with this mode (caches under a fresh host path); by default they must exist. */
    readonly createDirectoryMode?: number;
    /**
     * Flush the file and the directory entry to disk (default). `false` keeps the replacement atomic for
     * every reader but lets a power loss undo it: for caches whose owner already tolerates losing an entry
     * and whose writes sit on a latency-critical path (libcni's result cache, which libcni itself never flushes).
     */
    readonly flush?: boolean;
  } = {},
): Promise<void> {
  const directory = dirname(path);
  const flush = options.flush ?? true;
  if (options.createDirectoryMode !== undefined) await mkdir(directory, { recursive: true, mode: options.createDirectoryMode });
  // Hidden and unique, so a reader scanning the directory for *.json (the CDI cache does) never sees it
  // and two writers of one path never share a temporary file.
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      if (flush) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  if (flush) await syncDirectory(directory);
}

/** `.<target>.<12 hex digits>.tmp`, the temporary name writeFileAtomic gives the bytes of <target>. */
const TEMPORARY_NAME = /^\.(.+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes the temporary files that writers killed mid-write left in `directory`, for the targets `owns`
 * accepts (a shared directory such as the CDI one also holds other writers' files), and returns their
 * names. A live write's temporary file looks the same, so the owner calls this at startup, before it
 * writes there. A missing directory holds nothing.
 */
export async function removeAbandonedTemporaries(directory: string, owns: (target: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const abandoned = names.filter((name) => {
    const target = TEMPORARY_NAME.exec(name)?.[1];
    return target !== undefined && owns(target);
  });
  for (const name of abandoned)
    await unlink(join(directory, name)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  if (abandoned.length > 0) await syncDirectory(directory);
  return abandoned.sort();
}

/** Removes a file durably. Returns false when it was already gone, which callers treat as success. */
export async function removeFileDurably(path: string): Promise<boolean> {
  try {
    await unlink(path);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
  await syncDirectory(dirname(path));
  return true;
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
