import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { GrowthReportError } from './growth-report-error.ts';
import { writeGrowthReport, type CostSeries } from './growth-report.ts';
import { descendants, parseXml } from './xml-document.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'growth-report-'));
  dirs.push(dir);
  return dir;
}

const STEPS = [500, 1000, 2000, 4000, 8000];
const shadows = (cost: string, law: (x: number) => number): CostSeries => ({
  cost,
  unit: 'MiB',
  axis: 'live shadows',
  points: STEPS.map((x) => ({ x, y: law(x) })),
});

describe('writeGrowthReport', () => {
  it('writes the series with their fitted growth as JSON, a Markdown table and one chart per axis', () => {
    const dir = tempDir();
    const nodes: CostSeries = { cost: 'watch fan-out', unit: 'events', axis: 'nodes', points: [10, 20, 40, 80].map((x) => ({ x, y: 3 * x })) };
    const paths = writeGrowthReport(dir, 'object-growth', [shadows('etcd size', (x) => 0.004 * x), shadows('RSS', () => 90), nodes]);
    expect(paths).toEqual({
      json: join(dir, 'object-growth.json'),
      table: join(dir, 'object-growth.md'),
      plots: [join(dir, 'object-growth-live-shadows.svg'), join(dir, 'object-growth-nodes.svg')],
    });
    const report = JSON.parse(readFileSync(paths.json, 'utf8')) as { series: { cost: string; growth: { chosen: { model: string } } }[] };
    expect(report.series.map((one) => [one.cost, one.growth.chosen.model])).toEqual([
      ['etcd size', 'linear'],
      ['RSS', 'constant'],
      ['watch fan-out', 'linear'],
    ]);
    const table = readFileSync(paths.table, 'utf8');
    expect(table).toContain('### live shadows\n\n| cost | unit | 500 live shadows |');
    expect(table).toContain('### nodes\n\n| cost | unit | 10 nodes |');
    const panels = paths.plots.map(
      (plot) => descendants(parseXml(readFileSync(plot, 'utf8'))).filter((element) => element.name === 'g' && element.attributes['class'] === 'panel').length,
    );
    expect(panels).toEqual([2, 1]);
  });

  it.each([
    ['InvalidReportName', '../escape', [shadows('etcd size', (x) => x)]],
    ['NoSeries', 'object-growth', []],
    ['EmptySeries', 'object-growth', [{ cost: 'etcd size', unit: 'MiB', axis: 'live shadows', points: [] }]],
    ['NonFiniteValue', 'object-growth', [shadows('etcd size', (x) => (x === 2000 ? Number.NaN : x))]],
  ] as const)('refuses %s input with a typed error that names the report', (code, name, series) => {
    const dir = tempDir();
    let caught: unknown;
    try {
      writeGrowthReport(dir, name, series);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GrowthReportError);
    expect((caught as GrowthReportError).code).toBe(code);
    expect((caught as GrowthReportError).message).toContain(name);
  });
});
