import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Set by the image build; a checkout falls back to asking git. */
export const BUILD_COMMIT_ENV = 'SRIOV_DRA_GIT_COMMIT';

/** A build's package version and source commit (undefined when neither the build nor git says). */
export interface BuildIdentity {
  readonly version: string;
  readonly commit: string | undefined;
}

function git(dir: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, ...args], { timeout: 5_000 }, (error, stdout) => {
      resolve(error === null ? stdout : undefined);
    });
  });
}

/** The checkout's HEAD, with "-dirty" when its tree has changes: what tools/images/build-images.sh stamps an image with. */
async function checkoutCommit(dir: string): Promise<string | undefined> {
  const head = await git(dir, ['rev-parse', 'HEAD']);
  if (head === undefined || !/^[0-9a-f]{40}\s*$/.test(head)) return undefined;
  const status = await git(dir, ['status', '--porcelain']);
  return status === undefined || status === '' ? head.trim() : `${head.trim()}-dirty`;
}

/**
 * The identity of the build of the package at `packageDir` (a file: URL of its directory): the version its
 * package.json declares, and the commit the image build set in the environment, else the checkout's.
 */
export async function buildIdentity(packageDir: URL, env: Readonly<Record<string, string | undefined>>): Promise<BuildIdentity> {
  const manifest = JSON.parse(await readFile(new URL('package.json', packageDir), 'utf8')) as { version?: unknown };
  const version = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  const commit = env[BUILD_COMMIT_ENV];
  return { version, commit: commit !== undefined && commit !== '' ? commit : await checkoutCommit(fileURLToPath(packageDir)) };
}

/** What `<program> --version` prints: one line, the release and the source commit. */
export function versionLine(program: string, identity: BuildIdentity): string {
  return `${program} ${identity.version} (commit ${identity.commit ?? 'unknown'})\n`;
}

/** The flag every binary answers with its version line. */
export const VERSION_FLAG = '--version';
