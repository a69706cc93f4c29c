import { describe, expect, it } from '@jest/globals';
import { criticalF, evaluateFit, fitGrowth, fitQuality, formulaOf, type GrowthFit, type GrowthModel } from './growth-fit.ts';
import type { Point } from './growth-point.ts';
import { normalDraws } from './measurement-noise.ts';

const STEPS = [500, 1000, 2000, 4000, 8000];

/** The law at each x, times (1 + relative noise): how a repeated measurement scatters. */
function measured(xs: readonly number[], law: (x: number) => number, relativeNoise: number, seed: number): Point[] {
  const draw = normalDraws(seed);
  return xs.map((x) => ({ x, y: law(x) * (1 + relativeNoise * draw()) }));
}

function fitted(points: readonly Point[]): GrowthFit {
  const fit = fitGrowth(points);
  if (fit === undefined) throw new Error('expected a fit');
  return fit;
}

function fitOf(growth: GrowthFit, model: GrowthModel) {
  const fit = growth.fits.find((one) => one.model === model);
  if (fit === undefined) throw new Error(`no ${model} fit`);
  return fit;
}

describe('fitGrowth', () => {
  it.each([1, 2, 3, 4, 5])('calls flat measurements with 2 %% noise constant (seed %i)', (seed) => {
    const growth = fitted(measured(STEPS, () => 120, 0.02, seed));
    expect(growth.chosen.model).toBe('constant');
    expect(growth.chosen.coefficients[0]).toBeGreaterThan(115);
    expect(growth.chosen.coefficients[0]).toBeLessThan(125);
  });

  it.each([1, 2, 3, 4, 5])('calls proportional measurements with 2 %% noise linear and recovers the slope (seed %i)', (seed) => {
    const growth = fitted(measured(STEPS, (x) => 3 * x, 0.02, seed));
    expect(growth.chosen.model).toBe('linear');
    expect(growth.chosen.coefficients[1]).toBeGreaterThan(2.85);
    expect(growth.chosen.coefficients[1]).toBeLessThan(3.15);
  });

  it('keeps the constant where a line fits the noise better, but not significantly', () => {
    // Seed 179: the line's F statistic is 7.2, below F(1, 3) = 10.1 at 5 %.
    const growth = fitted(measured(STEPS, () => 120, 0.02, 179));
    const constant = fitOf(growth, 'constant');
    const linear = fitOf(growth, 'linear');
    expect(linear.rss).toBeLessThan(constant.rss);
    expect((constant.rss - linear.rss) / (linear.rss / (STEPS.length - 2))).toBeLessThan(criticalF(STEPS.length - 2));
    expect(growth.chosen.model).toBe('constant');
  });

  // A fleet benchmark has four steps (1, 5, 10, 25 nodes): a per-node cost must be told from a cluster-wide one there.
  const NODES = [1, 5, 10, 25];

  it.each([1, 2, 3, 4, 5])('calls a cost growing by a quarter per node, 10 %% noise, linear at four steps (seed %i)', (seed) => {
    const growth = fitted(measured(NODES, (x) => 1.5 + 0.25 * x, 0.1, seed));
    expect(growth.chosen.model).toBe('linear');
  });

  it.each([1, 2, 3, 4, 5])('calls a flat cost with 30 %% noise constant at four steps (seed %i)', (seed) => {
    expect(fitted(measured(NODES, () => 0.05, 0.3, seed)).chosen.model).toBe('constant');
  });

  it('calls a cost that moves by less than 1 % over the range constant, however exactly measured', () => {
    // 19.52 KiB gaining a few bytes as resourceVersions gain digits: significant, not material.
    expect(fitted(STEPS.map((x) => ({ x, y: 19.52 + 0.0005 * Math.log(x) }))).chosen.model).toBe('constant');
    expect(fitted(STEPS.map((x) => ({ x, y: 19.52 + 0.5 * Math.log(x) }))).chosen.model).toBe('logarithmic');
  });

  it('needs F(1, d) at 5 %: 161.5 at one degree of freedom, 18.5 at two, 3.84 in the limit', () => {
    expect(criticalF(1)).toBeCloseTo(161.44, 1);
    expect(criticalF(2)).toBeCloseTo(18.51, 1);
    expect(criticalF(35)).toBeCloseTo(2.042 ** 2, 6);
    expect(criticalF(10_000)).toBeCloseTo(1.98 ** 2, 6);
  });

  it('finds linear growth on top of a large fixed cost (a process that starts at 100 MB)', () => {
    const growth = fitted(measured(STEPS, (x) => 100 + 0.004 * x, 0.005, 7));
    expect(growth.chosen.model).toBe('linear');
    expect(growth.chosen.coefficients[1]).toBeCloseTo(0.004, 3);
  });

  it('recovers quadratic growth and its leading coefficient', () => {
    const growth = fitted(measured(STEPS, (x) => 0.001 * x * x + 2 * x + 50, 0.02, 11));
    expect(growth.chosen.model).toBe('quadratic');
    expect(growth.chosen.coefficients[2]).toBeGreaterThan(0.00095);
    expect(growth.chosen.coefficients[2]).toBeLessThan(0.00105);
  });

  it('recovers n·log n growth over four decades', () => {
    const growth = fitted(measured([10, 100, 1000, 10_000, 100_000], (x) => 2 * x * Math.log(x), 0.01, 13));
    expect(growth.chosen.model).toBe('n log n');
    expect(growth.chosen.coefficients[1]).toBeGreaterThan(1.95);
    expect(growth.chosen.coefficients[1]).toBeLessThan(2.05);
  });

  it('prefers the simpler linear model where n·log n fits no better: x·ln x over a narrow range is nearly a line', () => {
    const growth = fitted(measured([1000, 1250, 1500, 1750, 2000], (x) => x * Math.log(x), 0.01, 17));
    expect(growth.chosen.model).toBe('linear');
    expect(Math.abs(fitOf(growth, 'n log n').r2 - fitOf(growth, 'linear').r2)).toBeLessThan(0.001);
  });

  it('takes an exact fit as exact: equal measurements are constant with R² 1, an exact line is linear with R² 1', () => {
    const flat = fitted(STEPS.map((x) => ({ x, y: 5 })));
    expect(flat.chosen.model).toBe('constant');
    expect(flat.chosen.r2).toBe(1);
    const line = fitted(STEPS.map((x) => ({ x, y: 4 + 0.25 * x })));
    expect(line.chosen.model).toBe('linear');
    expect(line.chosen.r2).toBeCloseTo(1, 12);
    expect(line.chosen.coefficients[0]).toBeCloseTo(4, 6);
    expect(line.chosen.coefficients[1]).toBeCloseTo(0.25, 12);
  });

  it('stays accurate where x² spans many orders of magnitude', () => {
    const growth = fitted([1e5, 2e5, 4e5, 8e5, 1.6e6, 3.2e6].map((x) => ({ x, y: 1e-6 * x * x + 3 })));
    expect(growth.chosen.model).toBe('quadratic');
    expect(evaluateFit(growth.chosen, 5e6)).toBeCloseTo(25_000_003, 0);
  });

  it('leaves models out that the points cannot support', () => {
    expect(fitGrowth(STEPS.slice(0, 3).map((x) => ({ x, y: x })))).toBeUndefined();
    const four = fitted(STEPS.slice(0, 4).map((x) => ({ x, y: x })));
    expect(four.fits.map((fit) => fit.model)).toEqual(['constant', 'logarithmic', 'linear', 'n log n']);
    const withZero = fitted([0, 1, 2, 3, 4].map((x) => ({ x, y: x })));
    expect(withZero.fits.map((fit) => fit.model)).toEqual(['constant', 'linear', 'quadratic']);
  });
});

describe('formulaOf', () => {
  it('writes the fitted curve with four significant digits and a minus for negative terms', () => {
    const line = fitted(STEPS.map((x) => ({ x, y: 12.5 - 0.003125 * x })));
    expect(formulaOf(line.chosen)).toBe('y = 12.5 − 0.003125·x');
  });
});

describe('fitQuality', () => {
  it('gives a growth its R² and a constant its scatter relative to its value, where R² says nothing', () => {
    const flat = fitted([500, 1000, 2000, 4000, 8000].map((x, index) => ({ x, y: [99, 101, 99, 101, 100][index] ?? 0 })));
    expect(flat.chosen.model).toBe('constant');
    expect(flat.chosen.r2).toBe(0);
    expect(fitQuality(flat.chosen)).toBe('± 1.0 %');
    expect(fitQuality(fitted(STEPS.map((x) => ({ x, y: 2 * x }))).chosen)).toBe('R² 1.000');
    expect(fitQuality(fitted(STEPS.map((x, index) => ({ x, y: [1, -1, 1, -1, 0][index] ?? 0 }))).chosen)).toBe('± 1');
  });
});
