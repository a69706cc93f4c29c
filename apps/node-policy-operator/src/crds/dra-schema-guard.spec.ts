import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { type DraSchemaState, guardedCrd, isNews, judgeDraSchema } from './dra-schema-guard.ts';

const ours = guardedCrd();
const installed = (crd: object, generation: number) => ({ ...crd, metadata: { ...(crd as { metadata: object }).metadata, uid: 'crd-uid', generation } });
// Upstream's own copy, as its installer applies it: no spec.dra.
const upstream = parse(
  readFileSync(
    fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-crds/sriovnetwork.openshift.io_sriovnetworknodepolicies.yaml', import.meta.url)),
    'utf8',
  ),
) as object;

describe('judgeDraSchema', () => {
  it('says served, with the CRD’s uid and generation, when the installed CRD declares spec.dra at v1', () => {
    expect(judgeDraSchema(ours, installed(ours, 3))).toEqual({ served: true, uid: 'crd-uid', generation: 3 });
  });

  it('says missing, naming the CRD and the remedy, for upstream’s copy and for no CRD at all', () => {
    const pruning = judgeDraSchema(ours, installed(upstream, 4));
    expect(pruning.served ? 'served' : pruning.error.message).toBe(
      'DraSchemaMissing: CustomResourceDefinition sriovnetworknodepolicies.sriovnetwork.openshift.io: version v1 declares no spec.dra — run `node-policy-operator crds apply` (docs/install-and-upgrade.md) to add spec.dra to the CRD; until then the operator writes and deletes nothing it derives from the policies, and resumes by itself once spec.dra is back',
    );
    const absent = judgeDraSchema(ours, undefined);
    expect(absent.served ? 'served' : absent.error.detail).toBe('the CRD is not installed');
  });

  it('says missing, not served, for a CRD read back without the identity the fence compares', () => {
    const anonymous = judgeDraSchema(ours, ours);
    expect(anonymous.served ? 'served' : anonymous.error.detail).toMatch(/^the CRD read back is unreadable at metadata\.uid: /);
  });
});

describe('isNews', () => {
  const served = (generation: number): DraSchemaState => ({ served: true, uid: 'crd-uid', generation });
  const missing = judgeDraSchema(ours, installed(upstream, 5));

  it('is news: the first verdict, another verdict, a later generation', () => {
    expect([isNews(undefined, served(1)), isNews(served(1), missing), isNews(missing, served(6)), isNews(served(1), served(2))]).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('is no news: the same generation, the same missing verdict at a later generation, an older generation trailing a live read', () => {
    expect([isNews(served(2), served(2)), isNews(missing, judgeDraSchema(ours, installed(upstream, 6))), isNews(served(7), missing)]).toEqual([
      false,
      false,
      false,
    ]);
  });
});
