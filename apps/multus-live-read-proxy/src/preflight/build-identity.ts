import { type BuildIdentity, buildIdentity as packageBuildIdentity } from '@sriov-dra/k8s';

export type { BuildIdentity } from '@sriov-dra/k8s';

/** This package's root, the same two levels up from src/preflight and from dist/preflight. */
export const PACKAGE_DIR = new URL('../../', import.meta.url);

/** This build's identity: the daemon reports it on its socket and preflight compares it with its own. */
export function buildIdentity(env: Readonly<Record<string, string | undefined>>): Promise<BuildIdentity> {
  return packageBuildIdentity(PACKAGE_DIR, env);
}
