/**
 * The part of a CRD's structural OpenAPI v3 schema the API server checks an object against before any
 * webhook sees it, in the keywords the chart's CRDs use. CEL rules (x-kubernetes-validations) are not
 * evaluated here: the chart's only ones are on spec.dra, which validateNodePolicyDra mirrors.
 */
export interface StructuralSchema {
  readonly type?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  readonly additionalProperties?: StructuralSchema;
  readonly items?: StructuralSchema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly maxProperties?: number;
  readonly maxItems?: number;
  readonly format?: string;
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-validations'?: readonly unknown[];
  readonly 'x-kubernetes-map-type'?: string;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

/** One way the object fails its schema: the field as the API server names it, and what is wrong. */
export interface SchemaViolation {
  readonly field: string;
  readonly problem: string;
  /** An unknown field: strict field validation (kubectl's default) refuses it with 400; others prune it. */
  readonly unknown: boolean;
}

export interface SchemaCheckOptions {
  /** Fields another check judges in full (spec.dra: validateNodePolicyDra); they are not descended into. */
  readonly judgedElsewhere: ReadonlySet<string>;
}

const NOT_READ = new Set(['metadata', 'status']);

/**
 * Every violation of `schema` in `value`, in document order. metadata is the API server's own to check,
 * and status is dropped on create and update of a kind with a status subresource, so neither is read. A
 * null member counts as absent, as the API server prunes it unless the schema says nullable.
 */
export function schemaViolations(schema: StructuralSchema, value: unknown, options: SchemaCheckOptions): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  const visit = (node: StructuralSchema, at: string, item: unknown): void => {
    if (options.judgedElsewhere.has(at) || NOT_READ.has(at)) return;
    const typeProblem = typeMismatch(node, item);
    if (typeProblem !== undefined) {
      violations.push({ field: at, problem: typeProblem, unknown: false });
      return;
    }
    for (const problem of valueProblems(node, item)) violations.push({ field: at, problem, unknown: false });
    if (Array.isArray(item) && node.items !== undefined) {
      const items = node.items;
      item.forEach((element: unknown, index) => {
        visit(items, `${at}[${index}]`, element);
      });
    }
    if (isObject(item)) visitMembers(node, at, item);
  };
  const visitMembers = (node: StructuralSchema, at: string, object: Readonly<Record<string, unknown>>): void => {
    for (const name of node.required ?? []) {
      if (object[name] === undefined || object[name] === null) violations.push({ field: join(at, name), problem: 'Required value', unknown: false });
    }
    for (const [name, member] of Object.entries(object)) {
      const memberSchema = memberSchemaOf(node, name);
      if (memberSchema === undefined) {
        // Unknown even when null: strict decoding happens before pruning.
        if (node.properties !== undefined && node['x-kubernetes-preserve-unknown-fields'] !== true) {
          violations.push({ field: join(at, name), problem: 'unknown field', unknown: true });
        }
      } else if (member !== null || memberSchema.nullable === true) visit(memberSchema, join(at, name), member);
    }
  };
  if (!isObject(value)) return [{ field: '', problem: 'must be an object', unknown: false }];
  visitMembers(schema, '', value);
  return violations;
}

/**
 * `value` as the API server passes it on to validation and webhooks: a null member is pruned unless its
 * schema says nullable (apiextensions.k8s.io/v1), so an explicit null reads as absent.
 */
export function withoutPrunedNulls(schema: StructuralSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value : value.map((item: unknown) => withoutPrunedNulls(items, item));
  }
  if (!isObject(value)) return value;
  const kept: [string, unknown][] = [];
  for (const [name, member] of Object.entries(value)) {
    const memberSchema = memberSchemaOf(schema, name);
    if (member === null && memberSchema?.nullable !== true) continue;
    kept.push([name, memberSchema === undefined ? member : withoutPrunedNulls(memberSchema, member)]);
  }
  // fromEntries defines a "__proto__" key as an own member, as JSON.parse does.
  return Object.fromEntries(kept);
}

function memberSchemaOf(schema: StructuralSchema, name: string): StructuralSchema | undefined {
  const declared = schema.properties !== undefined && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
  return declared ?? schema.additionalProperties;
}

function join(at: string, name: string): string {
  return at === '' ? name : `${at}.${name}`;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMismatch(node: StructuralSchema, value: unknown): string | undefined {
  if (node.type === undefined) return undefined;
  const actual = typeName(value);
  if (actual === node.type || (node.type === 'number' && actual === 'integer')) return undefined;
  return `must be of type ${node.type}, not ${actual}`;
}

/** The keyword checks of a value whose type is right. */
function valueProblems(node: StructuralSchema, value: unknown): string[] {
  const problems: string[] = [];
  if (node.enum !== undefined && !node.enum.includes(value)) {
    problems.push(`Unsupported value: ${JSON.stringify(value)}: supported values: ${node.enum.map((entry) => JSON.stringify(entry)).join(', ')}`);
  }
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) problems.push(`should be greater than or equal to ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) problems.push(`should be less than or equal to ${node.maximum}`);
  }
  if (typeof value === 'string') {
    // The API server counts characters (runes), not UTF-16 units or bytes.
    const length = Array.from(value).length;
    if (node.minLength !== undefined && length < node.minLength) problems.push(`should be at least ${node.minLength} chars long`);
    if (node.maxLength !== undefined && length > node.maxLength) problems.push(`may not be more than ${node.maxLength} chars long`);
    if (node.pattern !== undefined && !new RegExp(node.pattern, 'u').test(value)) problems.push(`should match '${node.pattern}'`);
  }
  if (Array.isArray(value) && node.maxItems !== undefined && value.length > node.maxItems) problems.push(`must have at most ${node.maxItems} items`);
  if (isObject(value) && node.maxProperties !== undefined && Object.keys(value).length > node.maxProperties) {
    problems.push(`must have at most ${node.maxProperties} items`);
  }
  return problems;
}
