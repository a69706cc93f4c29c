// The openAPIV3Schema of the two kinds the operator admits, as the CRDs this project installs give them
// (crds/*.yaml, carried in the image as src/crds/upstream-owned-crds.ts): the validate command runs where
// no API server is.
import type { AdmittedKind } from '../admission/admission-object.ts';
import { UPSTREAM_OWNED_CRDS } from '../crds/upstream-owned-crds.ts';
import type { StructuralSchema } from './structural-schema.ts';

function storedSchema(name: string): StructuralSchema {
  const schema = UPSTREAM_OWNED_CRDS.find((crd) => crd.metadata.name === name)?.spec.versions.find((version) => version.storage)?.schema?.openAPIV3Schema;
  if (schema === undefined) throw new Error(`crds/ has no stored schema for ${name}`);
  return schema;
}

export const CRD_SCHEMAS: Readonly<Record<AdmittedKind, StructuralSchema>> = {
  SriovNetworkNodePolicy: storedSchema('sriovnetworknodepolicies.sriovnetwork.openshift.io'),
  SriovNetwork: storedSchema('sriovnetworks.sriovnetwork.openshift.io'),
};
