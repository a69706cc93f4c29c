import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Set by the image build; a checkout falls back to asking git. */
export const BUILD_COMMIT_ENV = 'SRIOV_DRA_GIT_COMMIT';

/** The package root, the same two levels up from src/preflight and from dist/preflight. */
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

function gitHead(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', PACKAGE_DIR, 'rev-parse', 'HEAD'], { timeout: 5_000 }, (error, stdout) => {
      resolve(error === null && /^[0-9a-f]{40}\s*$/.test(stdout) ? stdout.trim() : undefined);
    });
  });
}

/** A build's package version and source commit (undefined when neither the build nor git says). */
export interface BuildIdentity {
  readonly version: string;
  readonly commit: string | undefined;
}

/** This build's identity: the daemon reports it on its socket and preflight compares it with its own. */
export async function buildIdentity(env: Readonly<Record<string, string | undefined>>): Promise<BuildIdentity> {
  const manifest = JSON.parse(await readFile(`${PACKAGE_DIR}package.json`, 'utf8')) as { version?: unknown };
  const version = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  const commit = env[BUILD_COMMIT_ENV];
  return { version, commit: commit !== undefined && commit !== '' ? commit : await gitHead() };
}
