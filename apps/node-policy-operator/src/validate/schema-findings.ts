import { SriovDraError } from '@sriov-dra/contract';
import { type AdmissionFinding, WHOLE_OBJECT, findingOf } from '../admission/admission-finding.ts';
import type { AdmissionObject, AdmittedKind } from '../admission/admission-object.ts';
import { CRD_SCHEMAS } from './crd-schemas.ts';
import { schemaViolations, withoutPrunedNulls } from './structural-schema.ts';

/** spec.dra is judged whole by validateNodePolicyDra, which mirrors its schema and CEL rules with its own codes. */
const JUDGED_ELSEWHERE = new Set(['spec.dra']);

/**
 * What the API server refuses before any webhook is asked: the object against the schema of the chart's
 * CRD for its kind, unknown fields included, as kubectl's strict field validation refuses them.
 */
export function schemaFindings(kind: AdmittedKind, object: AdmissionObject): AdmissionFinding[] {
  return schemaViolations(CRD_SCHEMAS[kind], object, { judgedElsewhere: JUDGED_ELSEWHERE }).map((violation) => {
    const detail = violation.unknown
      ? `unknown field ${violation.field}: strict field validation (kubectl's default) refuses it, other clients have it dropped`
      : violation.problem;
    return findingOf(new SriovDraError('CustomResourceSchemaViolation', detail), violation.field === '' ? WHOLE_OBJECT : violation.field);
  });
}

/** The object as the API server hands it to the webhook once the schema admits it: disallowed nulls pruned. */
export function asAdmitted(kind: AdmittedKind, object: AdmissionObject): AdmissionObject {
  return withoutPrunedNulls(CRD_SCHEMAS[kind], object) as AdmissionObject;
}
