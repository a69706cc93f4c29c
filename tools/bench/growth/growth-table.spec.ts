import { describe, expect, it } from '@jest/globals';
import { fitGrowth } from './growth-fit.ts';
import type { CostSeries } from './growth-point.ts';
import { growthTable, measuredValue } from './growth-table.ts';

const row = (series: CostSeries) => ({ series, fit: fitGrowth(series.points) });

describe('growthTable', () => {
  const etcd: CostSeries = {
    cost: 'etcd db size',
    unit: 'MiB',
    axis: 'live shadows',
    points: [500, 1000, 2000, 4000].map((x) => ({ x, y: 1 + x / 1000 })),
  };
  const list: CostSeries = {
    cost: 'LIST | all namespaces',
    unit: 'ms',
    axis: 'live shadows',
    points: [
      { x: 500, y: 12.345678 },
      { x: 4000, y: 80 },
    ],
  };
  const rss: CostSeries = {
    cost: 'RSS',
    unit: 'MiB',
    axis: 'live shadows',
    points: [500, 1000, 2000, 4000].map((x, index) => ({ x, y: [99, 101, 99, 101][index] ?? 0 })),
  };
  const lines = growthTable('live shadows', [row(etcd), row(list), row(rss)])
    .trimEnd()
    .split('\n');

  it('has a column per measured x, right-aligned, between the cost and its fitted growth', () => {
    expect(lines[0]).toBe('| cost | unit | 500 live shadows | 1000 live shadows | 2000 live shadows | 4000 live shadows | fitted growth |');
    expect(lines[1]).toBe('| --- | --- | ---: | ---: | ---: | ---: | --- |');
  });

  it('writes each cost with its measurements and fitted growth', () => {
    expect(lines[2]).toBe('| etcd db size | MiB | 1.5 | 2 | 3 | 5 | linear: y = 1 + 0.001·x, R² 1.000 |');
  });

  it('marks an x a cost was not measured at, escapes a pipe, and says when there are too few points to fit', () => {
    expect(lines[3]).toBe('| LIST \\| all namespaces | ms | 12.35 | – | – | 80 | too few points |');
  });

  it('gives a constant its scatter, not its R² of 0', () => {
    expect(lines[4]).toBe('| RSS | MiB | 99 | 101 | 99 | 101 | constant: y = 100, ± 1.2 % |');
    expect(lines).toHaveLength(5);
  });
});

describe('measuredValue', () => {
  it('keeps integers whole and rounds the rest to four significant digits', () => {
    expect([8000, 123456789, 0.000123456, 2.5].map(measuredValue)).toEqual(['8000', '123456789', '0.0001235', '2.5']);
  });
});
