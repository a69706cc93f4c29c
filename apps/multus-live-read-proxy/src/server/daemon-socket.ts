import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DaemonServerError } from './daemon-server-error.ts';
import { SOCKET_NAME } from './wire.ts';

/** Only root may reach the socket: it runs CNI plugins as root on anyone's behalf. */
export const SOCKET_DIR_MODE = 0o700;
export const SOCKET_MODE = 0o600;

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Makes `<socketDir>` a 0700 directory and clears a socket an earlier daemon left at
 * `<socketDir>/multus.sock`. Unlike upstream, which empties the whole directory, nothing but a stale
 * socket is removed: anything else at the path is refused and left in place, as it is not ours.
 */
export async function prepareSocketPath(socketDir: string): Promise<string> {
  try {
    await mkdir(socketDir, { recursive: true, mode: SOCKET_DIR_MODE });
    await chmod(socketDir, SOCKET_DIR_MODE);
  } catch (error) {
    throw new DaemonServerError('SocketDirUnusable', socketDir, `cannot create it as a directory with mode 0700 (${errnoCode(error) ?? String(error)})`, error);
  }
  const socketPath = join(socketDir, SOCKET_NAME);
  let stats;
  try {
    stats = await lstat(socketPath);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return socketPath;
    throw new DaemonServerError('SocketDirUnusable', socketPath, `cannot inspect the path (${errnoCode(error) ?? String(error)})`, error);
  }
  if (!stats.isSocket()) throw new DaemonServerError('SocketPathOccupied', socketPath, 'the path exists and is not a socket, so it was left in place');
  try {
    await unlink(socketPath);
  } catch (error) {
    // Gone in between: the goal is reached.
    if (errnoCode(error) !== 'ENOENT') {
      throw new DaemonServerError('SocketDirUnusable', socketPath, `cannot remove the stale socket (${errnoCode(error) ?? String(error)})`, error);
    }
  }
  return socketPath;
}
