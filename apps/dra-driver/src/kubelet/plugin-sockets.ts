import { lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { KubeletPluginError } from './kubelet-plugin-error.ts';

export interface PluginSocketPaths {
  /** Watched by the kubelet: <registrar dir>/<driver>-reg.sock. */
  readonly registration: string;
  /** Directory owned by this driver under the kubelet's plugins directory. */
  readonly pluginDir: string;
  /** <plugins dir>/<driver>/dra.sock, sent to the kubelet as the endpoint (absolute). */
  readonly dra: string;
}

export function pluginSocketPaths(registrarDir: string, pluginsDir: string, driverName: string): PluginSocketPaths {
  const pluginDir = resolve(pluginsDir, driverName);
  return {
    registration: resolve(registrarDir, `${driverName}-reg.sock`),
    pluginDir,
    dra: join(pluginDir, 'dra.sock'),
  };
}

/**
 * Clears a socket left by an earlier run, which would otherwise make the bind fail. Anything else at
 * the path is refused rather than deleted: it is not ours. Returns whether a socket was removed.
 */
export async function removeStaleSocket(path: string): Promise<boolean> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!stats.isSocket()) {
    throw new KubeletPluginError('SocketPathOccupied', path, 'the path exists and is not a socket, so it was left in place');
  }
  try {
    await unlink(path);
  } catch (error) {
    // Gone in between: the goal is reached.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  return true;
}

export async function ensureSocketDirectories(paths: PluginSocketPaths): Promise<void> {
  await mkdir(dirname(paths.registration), { recursive: true });
  await mkdir(paths.pluginDir, { recursive: true });
}
