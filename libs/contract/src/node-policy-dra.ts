import { z } from 'zod';
import { type DraScalarValue, draScalarValueSchema } from './dra-attribute-value.ts';
import { type ErrorCode, type ObjectRef, type Result, SriovDraError, ok } from './errors.ts';
import { fieldIssues, mapEntryPath, memberPath } from './field-path.ts';
import { draLimits, isDns1123Label, isDns1123Subdomain, isFullyQualifiedDraName } from './formats.ts';
import { DISCOVERY_RESERVED_ATTRIBUTES, attributeKeys, operatorInputKeys } from './keys.ts';
import { messageValue } from './message-value.ts';
import { isObjectRecord, objectRecordSchema } from './object-record.ts';

/**
 * Input bound on spec.dra.attributes (§12.2.2), the CRD's maxProperties. Fewer fit: the operator's generated
 * DeviceAttributes must stay within the per-device budget (generatedAttributeCount), and the driver checks
 * the merged device, discovery included, before publication.
 */
export const MAX_NODE_POLICY_DRA_ATTRIBUTES = 32;

/**
 * SriovNetworkNodePolicy.spec.dra (§12.2.1). `{}` is meaningful: per-policy generation with base attributes
 * only. The attribute map is read key by key in checkNodePolicyDra (see objectRecordSchema).
 */
export const nodePolicyDraSchema = z.strictObject({
  attributes: objectRecordSchema('must be a map from attribute name to value').optional(),
});

export interface SriovNetworkReference {
  readonly name: string;
  readonly namespace: string;
}

export interface ValidatedNodePolicyDra {
  /** Ordinary custom attributes to publish, without the operator input keys. */
  readonly customAttributes: Readonly<Record<string, DraScalarValue>>;
  /** The SriovNetwork whose NAD becomes this policy's template, when referenced. */
  readonly sriovNetwork: SriovNetworkReference | null;
}

const operatorOwned = new Set<string>([
  ...DISCOVERY_RESERVED_ATTRIBUTES,
  // The operator generates the compatibility resourceName and the NAD pair itself.
  attributeKeys.resourceName,
  attributeKeys.netAttachDefName,
  attributeKeys.netAttachDefNamespace,
]);
const referenceKeys = new Set<string>(Object.values(operatorInputKeys));

/**
 * Most problems of one spec.dra listed one by one, two for each attribute the map may hold; the rest are
 * counted in one last problem. Unbounded, 1.2 MB of bad keys (100,000 `"kN":{}`) made 200,001 problems
 * whose messages were 47 times the input's size, for the webhook to hold and send back.
 */
export const MAX_LISTED_NODE_POLICY_DRA_PROBLEMS = 2 * MAX_NODE_POLICY_DRA_ATTRIBUTES;

/** Where spec.dra lives in a SriovNetworkNodePolicy; every issue's field starts here. */
export const NODE_POLICY_DRA_FIELD = 'spec.dra';
const ATTRIBUTES_FIELD = `${NODE_POLICY_DRA_FIELD}.attributes`;

/** `spec.dra.attributes["<key>"]`, an overlong key cut. */
export function nodePolicyAttributeField(key: string): string {
  return mapEntryPath(ATTRIBUTES_FIELD, key);
}

const UNKNOWN_DRA_MEMBER_REMEDY = 'spec.dra has one member, attributes: correct the spelling or remove the field';

/** Every problem of a spec.dra, each at its own field; empty for none. */
export type NodePolicyDraCheck =
  { readonly ok: true; readonly value: ValidatedNodePolicyDra } | { readonly ok: false; readonly errors: readonly [SriovDraError, ...SriovDraError[]] };

type Report = (code: ErrorCode, field: string, detail: string, remedy?: string) => void;

/**
 * The semantic checks of §12.2.2, run by the admission webhook, the validate command and reconciliation
 * (an older stored object or a disabled webhook must not produce unsafe output). Every independent fault is
 * reported, each with its own field, as the API server reports every field of an invalid object: a user
 * fixes them all in one edit. Existence of the referenced SriovNetwork is deliberately not checked:
 * admission must not depend on manifest order. Never throws.
 */
export function checkNodePolicyDra(value: unknown, object: ObjectRef = { kind: 'SriovNetworkNodePolicy' }): NodePolicyDraCheck {
  const errors: SriovDraError[] = [];
  let unlisted = 0;
  const report: Report = (code, field, detail, remedy) => {
    if (errors.length < MAX_LISTED_NODE_POLICY_DRA_PROBLEMS) errors.push(new SriovDraError(code, detail, { object: { ...object, field }, remedy }));
    else unlisted += 1;
  };
  const block = nodePolicyDraSchema.safeParse(value);
  if (!block.success) {
    for (const issue of fieldIssues(block.error, NODE_POLICY_DRA_FIELD)) {
      report('InvalidDRAAttribute', issue.field, issue.detail, issue.unknown ? UNKNOWN_DRA_MEMBER_REMEDY : undefined);
    }
  }
  // The map is read even beside an unknown member: a typo elsewhere in spec.dra hides none of its faults.
  const raw = isObjectRecord(value) && Object.hasOwn(value, 'attributes') ? value['attributes'] : undefined;
  const entries = isObjectRecord(raw) ? Object.entries(raw) : [];
  if (entries.length > MAX_NODE_POLICY_DRA_ATTRIBUTES) {
    report('InvalidDRAAttribute', ATTRIBUTES_FIELD, `${entries.length} attributes exceed the limit of ${MAX_NODE_POLICY_DRA_ATTRIBUTES}`);
  }
  const attributes = new Map<string, DraScalarValue>();
  for (const [key, member] of entries) {
    const field = nodePolicyAttributeField(key);
    const isReference = referenceKeys.has(key);
    if (!isReference && !isFullyQualifiedDraName(key)) {
      report('InvalidDRAAttribute', field, `key ${messageValue(key)} is not <DNS subdomain of at most 63>/<C identifier of at most 32>`);
    } else if (operatorOwned.has(key)) {
      report('ReservedDRAAttribute', field, `key ${key} is owned by discovery or generated by the operator`);
    }
    const parsed = draScalarValueSchema.safeParse(member);
    if (parsed.success) attributes.set(key, parsed.data);
    // A reference value the scalar schema refuses (e.g. a name over 64 bytes) is a bad reference.
    else
      for (const issue of fieldIssues(parsed.error, field))
        report(isReference ? 'InvalidSriovNetworkReference' : 'InvalidDRAAttribute', issue.field, issue.detail);
  }
  const keys = entries.map(([key]) => key);
  checkReference(keys, attributes, report);
  // Over the input bound, the count is the fault already reported; the generated budget would repeat it.
  if (entries.length <= MAX_NODE_POLICY_DRA_ATTRIBUTES) checkGeneratedBudget(keys, report);
  if (unlisted > 0) {
    errors.push(
      new SriovDraError('InvalidDRAAttribute', `${unlisted} more problem(s) not listed`, {
        object: { ...object, field: ATTRIBUTES_FIELD },
        remedy: 'fix the problems listed, then check again',
      }),
    );
  }
  const [first, ...rest] = errors;
  if (first !== undefined) return { ok: false, errors: [first, ...rest] };
  // Every key here is fully qualified, so none can be "__proto__".
  const customAttributes: Record<string, DraScalarValue> = {};
  for (const [key, member] of attributes) if (!referenceKeys.has(key)) customAttributes[key] = member;
  const name = attributes.get(operatorInputKeys.sriovNetworkName)?.string;
  const namespace = attributes.get(operatorInputKeys.sriovNetworkNamespace)?.string;
  return { ok: true, value: { customAttributes, sriovNetwork: name === undefined || namespace === undefined ? null : { name, namespace } } };
}

/** The first problem of checkNodePolicyDra, for callers that act on one verdict. Never throws. */
export function validateNodePolicyDra(value: unknown, object?: ObjectRef): Result<ValidatedNodePolicyDra> {
  const checked = checkNodePolicyDra(value, object);
  return checked.ok ? ok(checked.value) : { ok: false, error: checked.errors[0] };
}

/**
 * The SriovNetwork reference: both keys or neither, string values, an object name and a namespace name.
 * A value the scalar schema refused is reported already and not judged again here.
 */
function checkReference(keys: readonly string[], attributes: ReadonlyMap<string, DraScalarValue>, report: Report): void {
  const nameKey = operatorInputKeys.sriovNetworkName;
  const namespaceKey = operatorInputKeys.sriovNetworkNamespace;
  const hasName = keys.includes(nameKey);
  const hasNamespace = keys.includes(namespaceKey);
  if (hasName !== hasNamespace) {
    const [present, missing] = hasName ? [nameKey, namespaceKey] : [namespaceKey, nameKey];
    report('IncompleteSriovNetworkReference', nodePolicyAttributeField(present), `${missing} is missing`);
    return;
  }
  const name = attributes.get(nameKey);
  const namespace = attributes.get(namespaceKey);
  if (name === undefined || namespace === undefined) return;
  for (const [key, member] of [
    [nameKey, name],
    [namespaceKey, namespace],
  ] as const) {
    if (member.string === undefined) report('InvalidSriovNetworkReference', nodePolicyAttributeField(key), 'both reference keys must be string values');
  }
  // The name travels on as the netAttachDefName string attribute; draScalarValueSchema has already held it
  // to that attribute's 64-byte bound, so only the object-name syntax is left to check.
  if (name.string !== undefined && !isDns1123Subdomain(name.string)) {
    report(
      'InvalidSriovNetworkReference',
      memberPath(nodePolicyAttributeField(nameKey), 'string'),
      `SriovNetwork name ${messageValue(name.string)} is not an object name of at most ${draLimits.stringValueMaxLength} characters`,
    );
  }
  if (namespace.string !== undefined && !isDns1123Label(namespace.string)) {
    report(
      'InvalidSriovNetworkReference',
      memberPath(nodePolicyAttributeField(namespaceKey), 'string'),
      `SriovNetwork namespace ${messageValue(namespace.string)} is not a namespace name`,
    );
  }
}

/**
 * How many attributes the operator's DeviceAttributes for this spec.dra holds (§12.2.3): the custom
 * attributes, the compatibility resourceName it always generates and, for a SriovNetwork reference, the NAD
 * pair the reference becomes once resolved. Counted for an unresolved reference too, so that a policy valid
 * today does not break when its SriovNetwork becomes ready.
 *
 * The generated object is written to the API server, which refuses a DeviceAttributes (and would refuse a
 * device in a ResourceSlice) over the per-device budget: a spec.dra that cannot fit is invalid here, where
 * admission, the validate command and reconciliation all see it, rather than a write failing on every retry.
 */
function checkGeneratedBudget(keys: readonly string[], report: Report): void {
  const custom = keys.filter((key) => !referenceKeys.has(key)).length;
  const referenced = custom < keys.length;
  const generated = custom + 1 + (referenced ? 2 : 0);
  const limit = draLimits.attributesAndCapacitiesPerDevice;
  if (generated <= limit) return;
  const added = referenced
    ? `the generated ${attributeKeys.resourceName} and the ${attributeKeys.netAttachDefName}/${attributeKeys.netAttachDefNamespace} pair the SriovNetwork reference becomes`
    : `the generated ${attributeKeys.resourceName}`;
  report(
    'InvalidDRAAttribute',
    ATTRIBUTES_FIELD,
    `${custom} custom attributes, ${added} make ${generated} attributes, over the per-device limit of ${limit}`,
    `remove ${generated - limit} attribute(s): spec.dra.attributes fits at most ${limit - 1} entries, the two SriovNetwork reference keys included`,
  );
}
