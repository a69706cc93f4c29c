/** One line of /proc/self/mountinfo: where a filesystem is mounted, its type and mount options. */
export interface Mount {
  readonly mountPoint: string;
  readonly fsType: string;
  readonly options: readonly string[];
}

/** The kernel writes space, tab, newline and backslash in paths as three-digit octal escapes. */
function unescapeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_match, code: string) => String.fromCharCode(Number.parseInt(code, 8)));
}

/**
 * Parses /proc/self/mountinfo (proc(5)): `id parent major:minor root mountPoint options [optional…] - fsType
 * source superOptions`. Lines that do not have that shape are skipped.
 */
export function parseMountInfo(text: string): Mount[] {
  return text.split('\n').flatMap((line) => {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    const mountPoint = fields[4];
    const options = fields[5];
    const fsType = fields[separator + 1];
    if (separator < 0 || mountPoint === undefined || options === undefined || fsType === undefined) return [];
    return [{ mountPoint: unescapeOctal(mountPoint), fsType, options: options.split(',') }];
  });
}

function contains(mountPoint: string, path: string): boolean {
  return mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);
}

/** The mount `path` (absolute, symlinks resolved) lives on: the last-mounted of the deepest covering mounts. */
export function mountOf(mounts: readonly Mount[], path: string): Mount | undefined {
  let found: Mount | undefined;
  for (const mount of mounts) {
    if (contains(mount.mountPoint, path) && (found === undefined || mount.mountPoint.length >= found.mountPoint.length)) found = mount;
  }
  return found;
}

/** Filesystems whose content is gone after a reboot. */
export const VOLATILE_FS_TYPES: ReadonlySet<string> = new Set(['tmpfs', 'ramfs']);
