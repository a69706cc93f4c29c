import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_CRDS_DIR } from '@sriov-dra/k8s/testing';

interface Crd {
  readonly spec: { readonly versions: readonly { readonly storage: boolean; readonly schema: { readonly openAPIV3Schema: unknown } }[] };
}

function storedSchema(file: string): unknown {
  const crd = parse(readFileSync(join(CHART_CRDS_DIR, file), 'utf8')) as Crd;
  return crd.spec.versions.find((version) => version.storage)?.schema.openAPIV3Schema;
}

/** The chart's schemas of the admitted kinds, as src/validate/crd-schemas.ts must hold them. */
export function chartSchemas(): Record<string, unknown> {
  return {
    SriovNetworkNodePolicy: storedSchema('sriovnetwork.openshift.io_sriovnetworknodepolicies.yaml'),
    SriovNetwork: storedSchema('sriovnetwork.openshift.io_sriovnetworks.yaml'),
  };
}
