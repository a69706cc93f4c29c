import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { helmBinary } from './binaries.ts';

/** The driver subchart of the umbrella chart. */
export const DRIVER_CHART_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/charts/dra-driver/', import.meta.url));
/** The node-policy operator's subchart of the umbrella chart. */
export const OPERATOR_CHART_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/charts/node-policy-operator/', import.meta.url));
/** The Multus daemon's subchart of the umbrella chart. */
export const PROXY_CHART_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/charts/multus-live-read-proxy/', import.meta.url));

export interface ChartRelease {
  readonly namespace: string;
  /** Overrides of the chart's values.yaml, as `helm template --values` takes them. */
  readonly values?: Readonly<Record<string, unknown>>;
}

/**
 * Renders one template of a chart with Helm itself (`helm template --show-only`), the way an install
 * would render it into `release.namespace`, and returns its objects. Helm's own error (a template
 * error, a values schema violation) is thrown as it printed it.
 */
export function renderChartTemplate(chartDir: string, template: string, release: ChartRelease): Record<string, unknown>[] {
  return helmTemplate(chartDir, release, ['--show-only', `templates/${template}`]);
}

/** The umbrella chart an administrator installs: CRDs and one subchart per component. */
export const UMBRELLA_CHART_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/', import.meta.url));

/**
 * Renders a whole chart with Helm itself, the manifests `helm install` applies into `release.namespace`
 * after it has installed the chart's CRDs (which `helm template` leaves out, as here).
 */
export function renderChart(chartDir: string, release: ChartRelease): Record<string, unknown>[] {
  return helmTemplate(chartDir, release, []);
}

function helmTemplate(chartDir: string, release: ChartRelease, only: readonly string[]): Record<string, unknown>[] {
  const dir = mkdtempSync(join(tmpdir(), 'chart-values-'));
  try {
    const values = join(dir, 'values.json');
    // JSON is YAML: Helm reads the overrides as they are, with no quoting rules in between.
    writeFileSync(values, JSON.stringify(release.values ?? {}));
    const text = execFileSync(helmBinary(), ['template', 'release', chartDir, '--namespace', release.namespace, '--values', values, ...only], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return parseAllDocuments(text)
      .map((document) => document.toJS() as Record<string, unknown> | null)
      .filter((object) => object !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
