import type { PluginExit } from './plugin-output.ts';

/**
 * A delegate run chrooted, as upstream Multus runs it when daemon-config.json sets chrootDir: the plugin is
 * found in the daemon's own view of the bin directories and executed at that same path with chrootDir as
 * its root, its environment and stdin unchanged. Node cannot chroot a child, so coreutils' chroot does: it
 * changes the root, changes directory to the new `/` and replaces itself with the plugin (same pid), so the
 * process-group kill, the output limits and the exit status reach the plugin as when it runs directly.
 * Unlike upstream's Go exec, which keeps the daemon's working directory, the plugin starts in `/`.
 */

/** coreutils' chroot where Debian, the daemon image's base, installs it. */
export const CHROOT_PROGRAM = '/usr/sbin/chroot';

/** The name chroot runs under: it prefixes its own complaints with it, which is how they are told apart. */
const CHROOT_NAME = 'chroot';

/** What is spawned to run a plugin. */
export interface PluginLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly argv0: string;
}

/** The plugin itself, or chroot entering chrootDir and running the plugin at the same path there. */
export function pluginLaunch(pluginPath: string, chrootDir: string): PluginLaunch {
  if (chrootDir === '') return { file: pluginPath, args: [], argv0: pluginPath };
  return { file: CHROOT_PROGRAM, args: [chrootDir, pluginPath], argv0: CHROOT_NAME };
}

/**
 * coreutils' documented statuses for chroot's own failures: 125 it could not enter the new root, 126 the
 * command was found but could not be executed, 127 it was not found.
 */
const CHROOT_FAILURE_STATUSES: ReadonlySet<number> = new Set([125, 126, 127]);

/** The plugin never ran: chroot failed to enter the root or to execute the plugin in it. */
export interface ChrootFailure {
  /** chroot's complaint, e.g. `chroot: failed to run command '/opt/cni/bin/sriov': No such file or directory`. */
  readonly detail: string;
  /** The plugin file was open for writing (being replaced) when it was executed: worth another attempt. */
  readonly textFileBusy: boolean;
}

/**
 * Tells chroot's own failure from the plugin's answer: one of chroot's statuses, nothing on stdout, and a
 * complaint on stderr under chroot's name. A plugin that ran is never taken for one (it would have to
 * print exactly that itself). The busy test reads glibc's untranslated strerror(ETXTBSY): under a locale
 * with translated messages such a failure is still recognised, but not retried.
 */
export function chrootFailure(exit: PluginExit): ChrootFailure | undefined {
  if (exit.signal !== null || exit.code === null || !CHROOT_FAILURE_STATUSES.has(exit.code)) return undefined;
  if (exit.stdout !== '' || !exit.stderr.startsWith(`${CHROOT_NAME}: `)) return undefined;
  const detail = exit.stderr.trim();
  return { detail, textFileBusy: detail.endsWith(': Text file busy') };
}
