// A CRD's openAPIV3Schema as a JSON Schema (draft-07) for editors: yaml-language-server validates and completes
// a manifest against it while it is written, so it should refuse what the API server refuses and explain what
// the API server's schema explains.

/** A node of a CRD's openAPIV3Schema, as read from the YAML. */
export interface OpenApiNode {
  readonly [keyword: string]: unknown;
}

export type JsonSchema = Record<string, unknown>;

export interface CrdVersionSource {
  readonly name: string;
  readonly schema?: { readonly openAPIV3Schema?: OpenApiNode };
}

export interface CrdSource {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly CrdVersionSource[];
  };
}

export interface EditorSchema {
  /** schemas/<group>/<kind, lowercase>_<version>.json, relative to the repository root. */
  readonly path: string;
  readonly schema: JsonSchema;
}

/**
 * Fields kept by the API server (x-kubernetes-preserve-unknown-fields) only so that admission can refuse what
 * is unknown in them rather than see it pruned: spec.dra and its values (§12.2.2: unknown members are
 * rejected). An editor refuses unknown members there as the webhook does. Keyed by group/kind, then the path
 * from the object's root ("*" for a map's values).
 */
const KEPT_TO_BE_REFUSED: Readonly<Record<string, readonly string[]>> = {
  'sriovnetwork.openshift.io/SriovNetworkNodePolicy': ['spec.dra', 'spec.dra.attributes.*'],
};

// Keywords that mean the same in OpenAPI v3 and JSON Schema draft-07, carried as they are.
const SAME_KEYWORDS = [
  'description',
  'enum',
  'pattern',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'default',
] as const;

// The formats JSON Schema defines; Kubernetes' own (int64, int32, byte ...) mean nothing to a JSON Schema
// validator, and a strict one refuses an unknown format.
const JSON_SCHEMA_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid']);

const isNode = (value: unknown): value is OpenApiNode => typeof value === 'object' && value !== null && !Array.isArray(value);

// OpenAPI v3 gives exclusiveMinimum/exclusiveMaximum as flags on minimum/maximum; draft-07 wants the bound itself.
function bounds(node: OpenApiNode): JsonSchema {
  const out: JsonSchema = {};
  for (const [bound, flag] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof node[bound] === 'number') out[node[flag] === true ? flag : bound] = node[bound];
  }
  return out;
}

function convert(node: OpenApiNode, path: string, closed: readonly string[]): JsonSchema {
  const out: JsonSchema = bounds(node);
  for (const keyword of SAME_KEYWORDS) if (node[keyword] !== undefined) out[keyword] = node[keyword];
  if (typeof node['format'] === 'string' && JSON_SCHEMA_FORMATS.has(node['format'])) out['format'] = node['format'];
  const preserved = node['x-kubernetes-preserve-unknown-fields'] === true && !closed.includes(path);
  if (node['x-kubernetes-int-or-string'] === true) {
    out['type'] = ['integer', 'string'];
  } else if (typeof node['type'] === 'string') {
    out['type'] = node['nullable'] === true ? [node['type'], 'null'] : node['type'];
  }
  const properties = node['properties'];
  if (isNode(properties)) {
    out['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, convert(isNode(child) ? child : {}, path === '' ? name : `${path}.${name}`, closed)]),
    );
  }
  const values = node['additionalProperties'];
  if (isNode(values)) out['additionalProperties'] = convert(values, `${path}.*`, closed);
  // A structural schema prunes every field it does not declare, and strict field validation (kubectl's
  // default) refuses it; only a field that keeps unknown fields accepts them.
  else if (node['type'] === 'object' && !preserved) out['additionalProperties'] = false;
  if (isNode(node['items'])) out['items'] = convert(node['items'], `${path}[]`, closed);
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[combinator];
    if (Array.isArray(branches)) out[combinator] = branches.map((branch: unknown) => convert(isNode(branch) ? branch : {}, path, closed));
  }
  if (isNode(node['not'])) out['not'] = convert(node['not'], path, closed);
  return out;
}

// The API server fills metadata's schema in itself (a CRD may declare only its type): ObjectMeta's fields,
// closed as strict field validation closes them, so that a misspelt `lables` is marked too.
const stringMap = (description: string): JsonSchema => ({ description, type: 'object', additionalProperties: { type: 'string' } });
const METADATA: JsonSchema = {
  description: 'Standard object metadata.',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { description: 'The object name, unique in its namespace: a DNS subdomain of at most 253 characters.', type: 'string', maxLength: 253 },
    generateName: { description: 'A prefix the API server completes into a unique name when name is empty.', type: 'string' },
    namespace: { description: 'The namespace of the object; kubectl -n or the context namespace when absent.', type: 'string', maxLength: 63 },
    labels: stringMap('Labels: key to value, which selectors match.'),
    annotations: stringMap('Annotations: key to value, not used for selection.'),
    finalizers: { description: 'Finalizers that hold deletion until their controllers remove them.', type: 'array', items: { type: 'string' } },
    ownerReferences: { description: 'Objects this object depends on, for garbage collection.', type: 'array', items: { type: 'object' } },
    uid: { description: 'Set by the API server.', type: 'string' },
    resourceVersion: { description: 'Set by the API server; an update carrying it fails when the object changed since.', type: 'string' },
    generation: { description: 'Set by the API server: incremented on every change of the spec.', type: 'integer' },
    creationTimestamp: { description: 'Set by the API server.', type: ['string', 'null'] },
    deletionTimestamp: { description: 'Set by the API server when deletion was requested.', type: 'string' },
    deletionGracePeriodSeconds: { description: 'Set by the API server.', type: 'integer' },
    managedFields: { description: 'Set by the API server: which field manager owns which fields.', type: 'array', items: { type: 'object' } },
    selfLink: { description: 'Deprecated; never set.', type: 'string' },
  },
};

/** One JSON Schema per version of `crd`, apiVersion and kind constrained to that version's. */
export function editorSchemas(crd: CrdSource): EditorSchema[] {
  const { group, names, versions } = crd.spec;
  const closed = KEPT_TO_BE_REFUSED[`${group}/${names.kind}`] ?? [];
  return versions.map((version) => {
    const root = version.schema?.openAPIV3Schema;
    if (root === undefined) throw new Error(`CustomResourceDefinition ${crd.metadata.name} version ${version.name} has no openAPIV3Schema`);
    const converted = convert(root, '', closed);
    const properties = (converted['properties'] ?? {}) as Record<string, JsonSchema>;
    const apiVersion = `${group}/${version.name}`;
    const schema: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: `${names.kind} (${apiVersion})`,
      ...converted,
      required: [...new Set(['apiVersion', 'kind', ...((converted['required'] as string[] | undefined) ?? [])])],
      properties: {
        ...properties,
        apiVersion: { ...properties['apiVersion'], type: 'string', enum: [apiVersion] },
        kind: { ...properties['kind'], type: 'string', enum: [names.kind] },
        metadata: METADATA,
      },
    };
    return { path: `schemas/${group}/${names.kind.toLowerCase()}_${version.name}.json`, schema };
  });
}
