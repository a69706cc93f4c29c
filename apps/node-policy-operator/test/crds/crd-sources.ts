import { UPSTREAM_OWNED_CRDS_DIR, readCrds } from '@sriov-dra/k8s/testing';

/** The upstream-owned CRDs as written in crds/*.yaml, the source of src/crds/upstream-owned-crds.ts. */
export function upstreamOwnedCrdSources(): Record<string, unknown>[] {
  return readCrds(UPSTREAM_OWNED_CRDS_DIR);
}
