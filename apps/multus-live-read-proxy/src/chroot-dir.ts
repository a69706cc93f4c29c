import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { CHROOT_PROGRAM } from './cni/chroot.ts';
import { type DaemonConfig, DaemonConfigError } from './daemon-config.ts';

/**
 * Refuses at start a chrootDir no delegate could run in, instead of failing every ADD and DEL on it later:
 * it must be a directory, and the program that enters it must be there. Upstream checks neither.
 */
export async function checkChrootDir(config: Pick<DaemonConfig, 'path' | 'chrootDir'>): Promise<void> {
  const { chrootDir } = config;
  if (chrootDir === '') return;
  const subject = `${config.path} key "chrootDir"`;
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(chrootDir)).isDirectory();
  } catch (error) {
    const detail = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read: ${(error as Error).message}`;
    throw new DaemonConfigError('InvalidChrootDir', subject, `${chrootDir} ${detail}`);
  }
  if (!isDirectory) throw new DaemonConfigError('InvalidChrootDir', subject, `${chrootDir} is not a directory`);
  try {
    await access(CHROOT_PROGRAM, constants.X_OK);
  } catch {
    throw new DaemonConfigError('MissingChrootProgram', subject, `delegates enter ${chrootDir} through ${CHROOT_PROGRAM}, which is missing or not executable`);
  }
}
