// A growth report as Markdown: per axis, one row per cost with its measurement at every x and the growth
// fitted to them. Pure: series in, text out.
import { fitQuality, formulaOf, type GrowthFit } from './growth-fit.ts';
import type { CostSeries } from './growth-point.ts';

export interface TableRow {
  readonly series: CostSeries;
  readonly fit: GrowthFit | undefined;
}

/** A cell's text: a `|` would end the cell and a line break the row. */
function cell(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll(/\r?\n/g, ' ');
}

/** Four significant digits, without exponent notation for the magnitudes costs have. */
export function measuredValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(4)));
}

function growthCell(fit: GrowthFit | undefined): string {
  if (fit === undefined) return 'too few points';
  return `${fit.chosen.model}: ${formulaOf(fit.chosen)}, ${fitQuality(fit.chosen)}`;
}

/** One table for the rows on one axis; a cost not measured at some x shows "–" there. */
export function growthTable(axis: string, rows: readonly TableRow[]): string {
  const xs = [...new Set(rows.flatMap((row) => row.series.points.map((point) => point.x)))].sort((a, b) => a - b);
  const header = ['cost', 'unit', ...xs.map((x) => `${measuredValue(x)} ${axis}`), 'fitted growth'];
  const lines = [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map((_, index) => (index >= 2 && index < header.length - 1 ? '---:' : '---')).join(' | ')} |`,
  ];
  for (const { series, fit } of rows) {
    const at = new Map(series.points.map((point) => [point.x, point.y]));
    const values = xs.map((x) => {
      const y = at.get(x);
      return y === undefined ? '–' : measuredValue(y);
    });
    lines.push(`| ${[series.cost, series.unit, ...values, growthCell(fit)].map(cell).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
