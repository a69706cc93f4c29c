// Writes src/validate/crd-schemas.ts from the chart's CRDs:
//   node --conditions=@sriov-dra/source apps/node-policy-operator/test/validate/write-crd-schemas.ts && npx prettier --write apps/node-policy-operator/src/validate/crd-schemas.ts
// crd-schemas.spec.ts fails while the two differ.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chartSchemas } from './chart-schemas.ts';

const target = fileURLToPath(new URL('../../src/validate/crd-schemas.ts', import.meta.url));
writeFileSync(
  target,
  `// The openAPIV3Schema of the CRDs the chart installs for the two kinds the operator admits
// (charts/sriov-dra/crds), as data: the validate command runs where the chart is not, e.g. from the
// operator's image. Written by test/validate/write-crd-schemas.ts; crd-schemas.spec.ts fails while it and
// the chart differ.
import type { AdmittedKind } from '../admission/admission-object.ts';
import type { StructuralSchema } from './structural-schema.ts';

export const CRD_SCHEMAS: Readonly<Record<AdmittedKind, StructuralSchema>> = ${JSON.stringify(chartSchemas(), null, 2)};
`,
);
