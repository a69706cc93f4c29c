// Every field this project defines carries a description, which `kubectl explain` and editors show: the whole
// schema of the chart's CRDs (DeviceAttributes, SriovResourcePolicy), and in the upstream-owned
// SriovNetworkNodePolicy the fields this project adds, both as crds/*.yaml creates them and as `crds apply`
// merges them into an installed upstream CRD.
import { describe, expect, it } from '@jest/globals';
import { draConfigurationReasons } from '@sriov-dra/contract';
import { CHART_CRDS_DIR, readCrds } from '@sriov-dra/k8s/testing';
import { type CrdManifest, crdManifestSchema, schemaAt } from '../../src/crds/crd-manifest.ts';
import { carriesDraSchema } from '../../src/crds/crd-plan.ts';
import { CONDITIONS_FIELD, DRA_FIELD, fieldName } from '../../src/crds/dra-fields.ts';
import { UPSTREAM_OWNED_CRDS } from '../../src/crds/upstream-owned-crds.ts';
import { upstreamOwnedCrdSources } from './crd-sources.ts';
import { undescribedFields } from './field-descriptions.ts';

const chartCrds = readCrds(CHART_CRDS_DIR).map((crd) => crdManifestSchema.parse(crd));
const extendedCrds = (crds: readonly CrdManifest[]) => crds.filter(carriesDraSchema);

describe('field descriptions', () => {
  it('reads the two chart CRDs and the one upstream-owned CRD this project extends', () => {
    expect(chartCrds.map((crd) => crd.spec.names.kind)).toEqual(['DeviceAttributes', 'SriovResourcePolicy']);
    expect(extendedCrds(UPSTREAM_OWNED_CRDS).map((crd) => crd.spec.names.kind)).toEqual(['SriovNetworkNodePolicy']);
  });

  it.each(chartCrds.flatMap((crd) => crd.spec.versions.map((version) => [`${crd.spec.names.kind} ${version.name}`, version] as const)))(
    'describes every field of %s, the object itself included',
    (_name, version) => {
      const root = version.schema?.openAPIV3Schema ?? {};
      expect(typeof root['description']).toBe('string');
      expect(undescribedFields(root, '')).toEqual([]);
    },
  );

  const added = (crds: readonly CrdManifest[]) =>
    extendedCrds(crds).flatMap((crd) =>
      crd.spec.versions.flatMap((version) =>
        [DRA_FIELD, CONDITIONS_FIELD].map((field) => {
          const node = schemaAt(version, field);
          if (node === undefined) throw new Error(`${crd.metadata.name} ${version.name} has no ${fieldName(field)}`);
          return [`${crd.spec.names.kind} ${version.name} ${fieldName(field)}`, node] as const;
        }),
      ),
    );

  it.each([
    ['crds/*.yaml', () => extendedCrds(upstreamOwnedCrdSources().map((crd) => crdManifestSchema.parse(crd)))],
    ['the schema `crds apply` merges into installed CRDs', () => UPSTREAM_OWNED_CRDS],
  ])('describes every field this project adds to an upstream CRD, in %s', (_source, crds) => {
    const fields = added(crds());
    expect(fields.map(([name]) => name)).toEqual(['SriovNetworkNodePolicy v1 spec.dra', 'SriovNetworkNodePolicy v1 status.conditions']);
    for (const [name, node] of fields) {
      expect({ name, described: typeof node['description'] === 'string' }).toEqual({ name, described: true });
      expect({ name, undescribed: undescribedFields(node, name) }).toEqual({ name, undescribed: [] });
    }
  });

  it('names every reason of DRAConfigurationReady in the conditions description', () => {
    const conditions = schemaAt(extendedCrds(UPSTREAM_OWNED_CRDS)[0]?.spec.versions[0] ?? { name: '', served: true, storage: true }, CONDITIONS_FIELD);
    const description = conditions?.['description'];
    if (typeof description !== 'string') throw new Error('status.conditions has no description');
    expect(Object.values(draConfigurationReasons).filter((reason) => !description.includes(reason))).toEqual([]);
  });
});
