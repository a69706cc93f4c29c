import { type ErrorCode, MAX_NODE_POLICY_DRA_ATTRIBUTES, type ObjectRef, SriovDraError, nodePolicyDraSchema, validateNodePolicyDra } from '@sriov-dra/contract';
import { type AdmissionFinding, findingOf } from './admission-finding.ts';
import type { AdmissionObject, AdmissionOptions } from './admission-object.ts';

/** The operator's bootstrap policy, which it manages itself and which never feeds DRA generation. */
export const DEFAULT_POLICY_NAME = 'default';

const DRA_FIELD = 'spec.dra';
const ATTRIBUTES_FIELD = `${DRA_FIELD}.attributes`;
/** A valid key is at most 63 + 1 + 32 characters; a longer one is shown cut, never echoed whole. */
const SHOWN_KEY_CHARS = 100;

/**
 * The admission rules of a SriovNetworkNodePolicy (§12.2.1–§12.2.2): spec.dra must pass
 * validateNodePolicyDra, the check reconciliation repeats, and the default bootstrap policy may not carry
 * spec.dra at all. An absent (or null) spec.dra keeps the legacy behavior and is not judged. Whether a
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
    field: DRA_FIELD,
  };
  const findings: AdmissionFinding[] = [];
  if (name === DEFAULT_POLICY_NAME && namespace === options.operatorNamespace) {
    const detail = `the operator's bootstrap policy ${namespace}/${DEFAULT_POLICY_NAME} sets spec.dra`;
    findings.push(findingOf(new SriovDraError('DRABlockOnDefaultPolicy', detail, { object }), DRA_FIELD));
  }
  const validated = validateNodePolicyDra(dra, object);
  if (!validated.ok) findings.push(findingOf(validated.error, faultField(dra, validated.error.code)));
  return findings;
}

/** spec.dra, or undefined when spec is not an object (the CRD schema rejects that before admission). */
function draOf(policy: AdmissionObject): unknown {
  const spec: unknown = policy['spec'];
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as { dra?: unknown }).dra : undefined;
}

/**
 * The field validateNodePolicyDra stopped at. It reports the first fault and names the key only in its
 * detail, so each attribute is validated again on its own: the keys are checked one by one in map order,
 * so the first key that fails alone with the same code is the one the whole validation stopped at. A
 * fault of the block itself (an unknown member, too many keys, a reference pair that is wrong only as a
 * pair) is reported at the block.
 */
function faultField(dra: unknown, code: ErrorCode): string {
  const block = nodePolicyDraSchema.safeParse(dra);
  if (!block.success) return DRA_FIELD;
  const entries = Object.entries(block.data.attributes ?? {});
  if (entries.length > MAX_NODE_POLICY_DRA_ATTRIBUTES) return ATTRIBUTES_FIELD;
  for (const [key, value] of entries) {
    const alone = validateNodePolicyDra({ attributes: { [key]: value } });
    if (!alone.ok && alone.error.code === code) return attributeField(key);
  }
  return ATTRIBUTES_FIELD;
}

/** `spec.dra.attributes["<key>"]`: JSON-quoted, since keys contain dots and slashes. */
export function attributeField(key: string): string {
  const shown = key.length <= SHOWN_KEY_CHARS ? key : `${key.slice(0, SHOWN_KEY_CHARS)}\u2026`;
  return `${ATTRIBUTES_FIELD}[${JSON.stringify(shown)}]`;
}
