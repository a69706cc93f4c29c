import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

/** The driver subchart of the umbrella chart. */
export const DRIVER_CHART_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/charts/dra-driver/', import.meta.url));

export interface ChartRelease {
  readonly namespace: string;
  /** Overrides of the chart's values.yaml, merged key by key. */
  readonly values?: Readonly<Record<string, unknown>>;
}

function merge(base: unknown, override: unknown): unknown {
  if (typeof base !== 'object' || base === null || typeof override !== 'object' || override === null || Array.isArray(override)) return override;
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(override)) merged[key] = merge(merged[key], value);
  return merged;
}

function lookup(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), root);
}

/**
 * Renders a chart template the way `helm template` would for the only constructs the chart's templates
 * use so far: `{{ .Values.<path> }}` and `{{ .Release.Namespace }}`, each a plain scalar. Anything else
 * between braces fails loudly, so a template that outgrows this renderer cannot be half-rendered into
 * a test.
 */
export function renderChartTemplate(chartDir: string, template: string, release: ChartRelease): Record<string, unknown>[] {
  const values = merge(parse(readFileSync(`${chartDir}/values.yaml`, 'utf8')), release.values ?? {});
  const text = readFileSync(`${chartDir}/templates/${template}`, 'utf8').replace(/\{\{-?\s*([^}]*?)\s*-?\}\}/g, (action: string, expression: string) => {
    if (expression === '.Release.Namespace') return release.namespace;
    const path = /^\.Values\.([A-Za-z0-9_.]+)$/.exec(expression)?.[1];
    const value = path === undefined ? undefined : lookup(values, path);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`${template}: cannot render ${action}: only scalar .Values paths and .Release.Namespace are supported`);
    }
    return String(value);
  });
  return parseAllDocuments(text).map((document) => document.toJS() as Record<string, unknown>);
}
