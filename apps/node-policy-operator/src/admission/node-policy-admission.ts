import { NODE_POLICY_DRA_FIELD, type ObjectRef, SriovDraError, checkNodePolicyDra } from '@sriov-dra/contract';
import { type AdmissionFinding, findingOf } from './admission-finding.ts';
import type { AdmissionObject, AdmissionOptions } from './admission-object.ts';

/** The operator's bootstrap policy, which it manages itself and which never feeds DRA generation. */
export const DEFAULT_POLICY_NAME = 'default';

/**
 * The admission rules of a SriovNetworkNodePolicy (§12.2.1–§12.2.2): spec.dra must pass
 * checkNodePolicyDra, the check reconciliation repeats, and the default bootstrap policy may not carry
 * spec.dra at all. Every problem is a finding of its own, at its own field. An absent (or null) spec.dra keeps the legacy behavior and is not judged. Whether a
 * referenced SriovNetwork exists is not checked: applying a manifest must not depend on object order.
 * The rest of the policy is the CRD schema's to validate.
 */
export function admitNodePolicy(policy: AdmissionObject, options: AdmissionOptions): AdmissionFinding[] {
  const dra = draOf(policy);
  if (dra === undefined || dra === null) return [];
  const { name, namespace } = policy.metadata;
  const object: ObjectRef = {
    kind: 'SriovNetworkNodePolicy',
    namespace: typeof namespace === 'string' ? namespace : undefined,
    name: typeof name === 'string' ? name : undefined,
    field: NODE_POLICY_DRA_FIELD,
  };
  const findings: AdmissionFinding[] = [];
  if (name === DEFAULT_POLICY_NAME && namespace === options.operatorNamespace) {
    const detail = `the operator's bootstrap policy ${namespace}/${DEFAULT_POLICY_NAME} sets spec.dra`;
    findings.push(findingOf(new SriovDraError('DRABlockOnDefaultPolicy', detail, { object }), NODE_POLICY_DRA_FIELD));
  }
  const checked = checkNodePolicyDra(dra, object);
  if (!checked.ok) for (const error of checked.errors) findings.push(findingOf(error, error.object?.field ?? NODE_POLICY_DRA_FIELD));
  return findings;
}

/** spec.dra, or undefined when spec is not an object (the CRD schema rejects that before admission). */
function draOf(policy: AdmissionObject): unknown {
  const spec: unknown = policy['spec'];
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as { dra?: unknown }).dra : undefined;
}
