import { describe, expect, it } from '@jest/globals';
import type { CrdManifest, CrdVersion, SchemaNode } from './crd-manifest.ts';
import { planCrd } from './crd-plan.ts';
import { DRA_SCHEMA_ANNOTATION } from './dra-fields.ts';

const DRA = { type: 'object', properties: { attributes: { type: 'object', maxProperties: 31 } } };
const CONDITIONS = { type: 'array', items: { type: 'object' } };

const version = (name: string, spec: Record<string, SchemaNode>, status?: SchemaNode, served = true): CrdVersion => ({
  name,
  served,
  storage: name === 'v1',
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec }, ...(status === undefined ? {} : { status }) } } },
});

const crd = (versions: CrdVersion[], annotations?: Record<string, string>, rest: Partial<CrdManifest['spec']> = {}): CrdManifest => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sriovnetworknodepolicies.sriovnetwork.openshift.io', ...(annotations === undefined ? {} : { annotations }) },
  spec: {
    group: 'sriovnetwork.openshift.io',
    scope: 'Namespaced',
    names: { kind: 'SriovNetworkNodePolicy', plural: 'sriovnetworknodepolicies' },
    versions,
    ...rest,
  },
});

const OURS = crd([version('v1', { numVfs: { type: 'integer' }, dra: DRA }, { type: 'object', properties: { conditions: CONDITIONS } })], {
  [DRA_SCHEMA_ANNOTATION]: 'sriov-dra',
});
const UPSTREAM = crd([version('v1', { numVfs: { type: 'integer', minimum: 0 }, mtu: { type: 'integer' } }, { type: 'object' })]);

describe('planCrd', () => {
  it('creates a missing CRD as crds/ has it', () => {
    expect(planCrd(OURS, undefined)).toEqual({ action: 'create', name: OURS.metadata.name, crd: OURS });
  });

  it('adds spec.dra and status.conditions to upstream’s schema and keeps everything else it has', () => {
    const plan = planCrd(OURS, { ...UPSTREAM, metadata: { ...UPSTREAM.metadata, resourceVersion: '42', labels: { team: 'net' } } });
    expect(plan).toEqual({
      action: 'upgrade',
      name: OURS.metadata.name,
      added: ['v1 spec.dra', 'v1 status.conditions'],
      crd: {
        ...UPSTREAM,
        metadata: { ...UPSTREAM.metadata, resourceVersion: '42', labels: { team: 'net' }, annotations: { [DRA_SCHEMA_ANNOTATION]: 'sriov-dra' } },
        spec: {
          ...UPSTREAM.spec,
          versions: [
            version(
              'v1',
              { numVfs: { type: 'integer', minimum: 0 }, mtu: { type: 'integer' }, dra: DRA },
              { type: 'object', properties: { conditions: CONDITIONS } },
            ),
          ],
        },
      },
    });
  });

  it('is unchanged once merged: a second run plans nothing', () => {
    const first = planCrd(OURS, UPSTREAM);
    if (first.action !== 'upgrade') throw new Error(first.action);
    expect(planCrd(OURS, first.crd)).toEqual({ action: 'unchanged', name: OURS.metadata.name });
  });

  it('keeps conditions upstream declares itself, and a status that keeps unknown fields', () => {
    const own = { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } };
    for (const status of [
      { type: 'object', properties: { conditions: own } },
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    ]) {
      const plan = planCrd(OURS, crd([version('v1', { numVfs: { type: 'integer' } }, status)]));
      expect(plan.action === 'upgrade' ? plan.added : plan.action).toEqual(['v1 spec.dra']);
    }
  });

  it('replaces its own earlier spec.dra (annotated), refuses to overwrite another project’s', () => {
    const older = crd([version('v1', { dra: { type: 'object' } }, { type: 'object', properties: { conditions: CONDITIONS } })], {
      [DRA_SCHEMA_ANNOTATION]: 'sriov-dra',
    });
    const replaced = planCrd(OURS, older);
    expect(replaced.action === 'upgrade' ? replaced.added : replaced.action).toEqual(['v1 spec.dra']);
    const foreign = planCrd(OURS, crd([version('v1', { dra: { type: 'object' } })]));
    expect(foreign.action === 'refused' ? foreign.error.code : foreign.action).toBe('CrdNotMergeable');
  });

  it('extends every served version and leaves versions that are not served alone', () => {
    const ours = crd(
      [...OURS.spec.versions, { ...version('v1beta1', { dra: DRA }, { type: 'object', properties: { conditions: CONDITIONS } }) }],
      OURS.metadata.annotations,
    );
    const plan = planCrd(ours, crd([version('v1', {}), version('v1beta1', {}), version('v0', {}, undefined, false)]));
    expect(plan.action === 'upgrade' ? plan.added : plan.action).toEqual([
      'v1 spec.dra',
      'v1 status.conditions',
      'v1beta1 spec.dra',
      'v1beta1 status.conditions',
    ]);
  });

  it.each([
    ['a served version it does not know', crd([version('v1', {}), version('v2', {})]), 'it serves version v2, which this release does not know (it knows v1)'],
    [
      'another scope',
      crd([version('v1', {})], undefined, { scope: 'Cluster' }),
      'it defines Cluster kind SriovNetworkNodePolicy of sriovnetwork.openshift.io; this release expects Namespaced SriovNetworkNodePolicy',
    ],
    [
      'a spec without an object schema',
      crd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }]),
      'version v1 has no object schema for spec to add spec.dra to',
    ],
  ])('refuses %s, naming the CRD', (_case, installed, detail) => {
    const plan = planCrd(OURS, installed);
    expect(plan.action === 'refused' ? { code: plan.error.code, detail: plan.error.detail, object: plan.error.object } : plan.action).toEqual({
      code: 'CrdNotMergeable',
      detail,
      object: { kind: 'CustomResourceDefinition', name: OURS.metadata.name },
    });
  });

  it('leaves an installed CRD without fields of ours as it is, whatever it holds', () => {
    const nad = crd([version('v1', {})]);
    const plain = { ...nad, metadata: { name: nad.metadata.name } };
    expect(planCrd(plain, crd([version('v1', {}), version('v9', {})]))).toEqual({ action: 'unchanged', name: nad.metadata.name });
  });
});
