// The operator's image copy of the upstream-owned CRDs is crds/*.yaml, and the validate command's schemas
// are theirs.
import { describe, expect, it } from '@jest/globals';
import { UPSTREAM_OWNED_CRDS } from '../../src/crds/upstream-owned-crds.ts';
import { CRD_SCHEMAS } from '../../src/validate/crd-schemas.ts';
import { upstreamOwnedCrdSources } from './crd-sources.ts';

describe('UPSTREAM_OWNED_CRDS', () => {
  it('is crds/*.yaml (else run test/crds/write-upstream-owned-crds.ts)', () => {
    expect(UPSTREAM_OWNED_CRDS).toEqual(upstreamOwnedCrdSources());
  });

  it('gives the validate command the stored schema of each admitted kind', () => {
    const stored = (name: string) =>
      (
        upstreamOwnedCrdSources().find((crd) => (crd['metadata'] as { name: string }).name === name)?.['spec'] as {
          versions: { storage: boolean; schema: { openAPIV3Schema: unknown } }[];
        }
      ).versions.find((version) => version.storage)?.schema.openAPIV3Schema;
    expect(CRD_SCHEMAS).toEqual({
      SriovNetworkNodePolicy: stored('sriovnetworknodepolicies.sriovnetwork.openshift.io'),
      SriovNetwork: stored('sriovnetworks.sriovnetwork.openshift.io'),
    });
  });
});
