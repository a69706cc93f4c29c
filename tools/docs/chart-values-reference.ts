// Rows of the chart values reference, from the charts' values.schema.json (types, allowed values, the
// description every key carries) and values.yaml (defaults). Pure: the caller reads the files.

/** The part of a JSON Schema node the charts' schemas use. */
export interface SchemaNode {
  readonly description?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
}

export interface ValueRow {
  /** As set on the umbrella chart, e.g. `dra-driver.kubeApi.qps`; `[]` marks a list entry's member. */
  readonly key: string;
  readonly type: string;
  /** The default as JSON, or undefined when values.yaml sets none. */
  readonly defaultValue: string | undefined;
  readonly description: string;
}

function typeText(node: SchemaNode): string {
  if (node.enum !== undefined) return `one of ${node.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ')}`;
  const type = typeof node.type === 'string' ? node.type : (node.type?.join(' or ') ?? 'any');
  if (node.minimum !== undefined && node.maximum !== undefined) return `${type} ${String(node.minimum)}–${String(node.maximum)}`;
  if (node.minimum !== undefined) return `${type} ≥ ${String(node.minimum)}`;
  if (node.exclusiveMinimum !== undefined) return `${type} > ${String(node.exclusiveMinimum)}`;
  return type;
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * One row per key: an object with its own properties is opened into its members; a list of objects gets a
 * row of its own and one per member of its entries (`deviceClasses[].name`).
 */
export function valueRows(schema: SchemaNode, defaults: unknown, prefix: string, skip: ReadonlySet<string> = new Set()): ValueRow[] {
  const rows: ValueRow[] = [];
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    if (skip.has(name)) continue;
    const key = `${prefix}${name}`;
    const value = member(defaults, name);
    if (node.properties !== undefined) {
      rows.push(...valueRows(node, value, `${key}.`));
      continue;
    }
    rows.push({ key, type: typeText(node), defaultValue: value === undefined ? undefined : JSON.stringify(value), description: node.description ?? '' });
    if (node.items?.properties !== undefined) rows.push(...valueRows(node.items, undefined, `${key}[].`));
  }
  return rows;
}

/** Values under `key` in the umbrella chart's values.yaml override the subchart's own defaults. */
export function mergeDefaults(base: unknown, override: unknown): unknown {
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof override !== 'object' || override === null || Array.isArray(override)) {
    return override === undefined ? base : override;
  }
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(override as Record<string, unknown>)) merged[key] = mergeDefaults(merged[key], value);
  return merged;
}
