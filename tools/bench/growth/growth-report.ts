// Writes a growth report: the measured series with their fitted growth as JSON, a Markdown table, and one
// SVG chart per axis. The thin effectful shell around growth-fit, growth-table and svg-chart.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fitGrowth, SELECTION_RULE } from './growth-fit.ts';
import type { CostSeries } from './growth-point.ts';
import { GrowthReportError } from './growth-report-error.ts';
import { growthTable } from './growth-table.ts';
import { renderGrowthChart } from './svg-chart.ts';

export type { CostSeries, Point } from './growth-point.ts';

/** A file name part from an axis such as "live shadows": lower case, dashes. */
function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replaceAll(/[^a-z0-9]+/g, '-')
      .replaceAll(/^-|-$/g, '') || 'axis'
  );
}

function checkSeries(name: string, series: readonly CostSeries[]): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new GrowthReportError('InvalidReportName', name, 'the name must be a plain file name part');
  if (series.length === 0) throw new GrowthReportError('NoSeries', name, 'no series were given');
  for (const one of series) {
    if (one.points.length === 0) throw new GrowthReportError('EmptySeries', `${name}: ${one.cost}`, 'the series has no points');
    const bad = one.points.find((point) => !Number.isFinite(point.x) || !Number.isFinite(point.y));
    if (bad !== undefined) throw new GrowthReportError('NonFiniteValue', `${name}: ${one.cost}`, `point (${String(bad.x)}, ${String(bad.y)}) is not finite`);
  }
}

/** Writes <dir>/<name>.json (series + fitted growth), <dir>/<name>.md (table) and one SVG per axis; returns the paths. */
export function writeGrowthReport(dir: string, name: string, series: readonly CostSeries[]): { json: string; table: string; plots: string[] } {
  checkSeries(name, series);
  const fitted = series.map((one) => ({ series: one, fit: fitGrowth(one.points) }));
  const axes = [...new Set(series.map((one) => one.axis))];
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  writeFileSync(
    json,
    `${JSON.stringify({ name, selectionRule: SELECTION_RULE, series: fitted.map(({ series: one, fit }) => ({ ...one, growth: fit ?? null })) }, null, 2)}\n`,
  );
  const table = join(dir, `${name}.md`);
  const sections = axes.map(
    (axis) =>
      `### ${axis}\n\n${growthTable(
        axis,
        fitted.filter((row) => row.series.axis === axis),
      )}`,
  );
  writeFileSync(table, `## ${name}\n\n${sections.join('\n')}\nFitted growth: ${SELECTION_RULE}\n`);
  const plots = axes.map((axis) => {
    const file = join(dir, `${name}-${slug(axis)}.svg`);
    writeFileSync(
      file,
      renderGrowthChart(
        `${name}: costs by ${axis}`,
        fitted.filter((row) => row.series.axis === axis),
      ),
    );
    return file;
  });
  return { json, table, plots };
}
