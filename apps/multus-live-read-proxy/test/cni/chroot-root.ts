// A root directory for delegates to run chrooted in, standing in for the host's root as the daemon's
// container sees it at /hostroot: a static busybox as its shell (Debian's busybox-static), a marker file
// found nowhere else, and a recording plugin at the same path as in the daemon's own bin directory — the
// daemon finds the plugin there, then runs that path inside the root.
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const BUSYBOX = '/bin/busybox';
/** At the top of the root; no host has it. */
export const MARKER_PATH = '/mlrp-chroot-marker';
export const MARKER = 'seen inside the root';
export const RECORDER_TYPE = 'rec-root';

export interface ChrootRoot {
  /** The chrootDir. */
  readonly dir: string;
  /** The daemon's bin directory holding the recorder; the root holds a copy at the same path. */
  readonly binDir: string;
  /** The recorder as the daemon finds it, and its copy in the root that runs. */
  readonly plugin: string;
  readonly pluginInRoot: string;
  /** The calls the recorder logged at its absolute path as seen inside the root, e.g. `ADD:c1`. */
  callsInRoot(): Promise<string[]>;
  /** Whether anything was logged at that path on the host itself. */
  loggedOnHost(): boolean;
}

/**
 * Logs `<command>:<container>` to an absolute path and, for ADD, answers with the marker's content (or
 * `none` where there is no marker): a plugin that keeps its state at a fixed host path, as host-local and
 * sriov do.
 */
function recorder(stateDir: string): string {
  return `#!/bin/sh
mkdir -p '${stateDir}'
echo "$CNI_COMMAND:$CNI_CONTAINERID" >> '${stateDir}/calls'
if [ "$CNI_COMMAND" = ADD ]; then
  marker=none
  if [ -f ${MARKER_PATH} ]; then marker=$(cat ${MARKER_PATH}); fi
  printf '{"cniVersion":"1.1.0","dns":{"domain":"%s"}}' "$marker"
fi
`;
}

/** Builds the root under `work` (an absolute directory of this test's own). */
export async function createChrootRoot(work: string): Promise<ChrootRoot> {
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: install Debian's busybox-static, the shell of the test's chroot`);
  const dir = join(work, 'root');
  const binDir = join(work, 'bin');
  const stateDir = join(work, 'state');
  const inRoot = (path: string): string => join(dir, path);
  await mkdir(inRoot('/bin'), { recursive: true });
  await copyFile(BUSYBOX, inRoot('/bin/busybox'));
  for (const applet of ['sh', 'mkdir', 'cat']) await symlink('busybox', inRoot(`/bin/${applet}`));
  await writeFile(inRoot(MARKER_PATH), MARKER);
  const plugin = join(binDir, RECORDER_TYPE);
  const pluginInRoot = inRoot(plugin);
  for (const path of [plugin, pluginInRoot]) {
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, recorder(stateDir));
    await chmod(path, 0o755);
  }
  return {
    dir,
    binDir,
    plugin,
    pluginInRoot,
    async callsInRoot() {
      const text = await readFile(inRoot(join(stateDir, 'calls')), 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line !== '');
    },
    loggedOnHost: () => existsSync(stateDir),
  };
}
