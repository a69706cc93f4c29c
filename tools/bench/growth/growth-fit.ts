// Which growth law a measured cost follows: least-squares fits of the usual complexity classes, and the
// simplest one that no richer law beats significantly. Pure: numbers in, fits out.
import type { Point } from './growth-point.ts';

/** The growth laws tried, simplest first: the order in which a tie is broken. */
export const GROWTH_MODELS = ['constant', 'logarithmic', 'linear', 'n log n', 'quadratic'] as const;
export type GrowthModel = (typeof GROWTH_MODELS)[number];

/** y as a sum of coefficients times these terms of x; `1` is the intercept. */
const TERMS: Readonly<Record<GrowthModel, readonly ((x: number) => number)[]>> = {
  constant: [() => 1],
  logarithmic: [() => 1, (x) => Math.log(x)],
  linear: [() => 1, (x) => x],
  'n log n': [() => 1, (x) => x * Math.log(x)],
  quadratic: [() => 1, (x) => x, (x) => x * x],
};

const TERM_NAMES: Readonly<Record<GrowthModel, readonly string[]>> = {
  constant: [''],
  logarithmic: ['', 'ln x'],
  linear: ['', 'x'],
  'n log n': ['', 'x·ln x'],
  quadratic: ['', 'x', 'x²'],
};

/** Enough to weigh a constant against a one-term growth. */
export const MINIMUM_POINTS = 4;

/** The least change over the measured range, relative to the cost's level, that counts as growth. */
export const MATERIAL_CHANGE = 0.01;

/**
 * Student's t at 0.975 and 0.995 (two-sided 5 % and 1 %) by degrees of freedom 1–10, 12, 15, 20, 30, 40, 60, 120
 * and ∞: F(1, d) at that level is its square. A table, because a benchmark's few steps need only these.
 */
// prettier-ignore
const T_QUANTILES: readonly (readonly [dof: number, fivePercent: number, onePercent: number])[] = [
  [1, 12.706, 63.657], [2, 4.303, 9.925], [3, 3.182, 5.841], [4, 2.776, 4.604], [5, 2.571, 4.032], [6, 2.447, 3.707],
  [7, 2.365, 3.499], [8, 2.306, 3.355], [9, 2.262, 3.25], [10, 2.228, 3.169], [12, 2.179, 3.055], [15, 2.131, 2.947],
  [20, 2.086, 2.845], [30, 2.042, 2.75], [40, 2.021, 2.704], [60, 2.0, 2.66], [120, 1.98, 2.617],
  [Number.POSITIVE_INFINITY, 1.96, 2.576],
];

/** F(1, d) at 5 % or 1 %: from the largest tabulated d at or below the given one, so never less strict. */
export function criticalF(degreesOfFreedom: number, level: 0.05 | 0.01 = 0.05): number {
  let t = Number.POSITIVE_INFINITY;
  for (const [dof, five, one] of T_QUANTILES) if (dof <= degreesOfFreedom) t = level === 0.05 ? five : one;
  return t * t;
}

export const SELECTION_RULE =
  `Each model is fitted by least squares. A one-term growth (logarithmic, linear, n·log n) counts only when it ` +
  `explains the measurements significantly better than the constant (F-test at 5 %: (RSS₀ − RSS₁) / (RSS₁ / ` +
  `(n − 2)) > F(1, n − 2)) and its fitted curve changes by at least ${String(100 * MATERIAL_CHANGE)} % of the ` +
  `cost's mean over the measured range. Of those, the linear is reported unless adding the logarithmic or n·log n term to the ` +
  `line is significant in the same way (F(1, n − 3)), and the quadratic replaces a growth when it is better than ` +
  `the line at 1 % (F(1, n − 3)). "constant" therefore means no growth was significant at these points; its scatter is ` +
  `shown. A model needs at least k+2 points (k coefficients), a report at least 4; logarithmic and n·log n need ` +
  `every x > 0.`;

export interface ModelFit {
  readonly model: GrowthModel;
  /** Intercept first, then one per term of the model, in the order of `formula`. */
  readonly coefficients: readonly number[];
  /** 1 − RSS/TSS; 1 when the measurements do not vary and the fit is exact. */
  readonly r2: number;
  /** √(RSS / (n − k)). */
  readonly residualStandardError: number;
  /** The residual sum of squares SELECTION_RULE compares, floored where rounding leaves an exact fit a trace. */
  readonly rss: number;
}

export interface GrowthFit {
  readonly chosen: ModelFit;
  /** Every model that could be fitted, in GROWTH_MODELS order. */
  readonly fits: readonly ModelFit[];
}

/** The fitted curve's value at x. */
export function evaluateFit(fit: ModelFit, x: number): number {
  return TERMS[fit.model].reduce((sum, term, index) => sum + (fit.coefficients[index] ?? 0) * term(x), 0);
}

/** `y = 12.5 + 0.0031·x`, coefficients to four significant digits, zero terms left out. */
export function formulaOf(fit: ModelFit): string {
  const parts = TERM_NAMES[fit.model].flatMap((name, index) => {
    const value = Number((fit.coefficients[index] ?? 0).toPrecision(4));
    if (value === 0) return [];
    return [name === '' ? String(value) : `${String(value)}·${name}`];
  });
  return `y = ${parts.length === 0 ? '0' : parts.join(' + ').replaceAll('+ -', '− ')}`;
}

/**
 * How well the fit explains the measurements: R² for a growth; for a constant, whose R² is 0 by
 * definition whenever the measurements vary at all, their scatter around it relative to its value.
 */
export function fitQuality(fit: ModelFit): string {
  if (fit.model !== 'constant') return `R² ${fit.r2.toFixed(3)}`;
  const level = Math.abs(fit.coefficients[0] ?? 0);
  return level === 0 ? `± ${String(Number(fit.residualStandardError.toPrecision(2)))}` : `± ${((100 * fit.residualStandardError) / level).toFixed(1)} %`;
}

/**
 * Least squares by modified Gram–Schmidt on columns scaled to unit length: x² at x = 8,000 is 6.4·10⁷,
 * and the normal equations would square that spread again.
 */
function leastSquares(columns: readonly (readonly number[])[], y: readonly number[]): number[] | undefined {
  // A term that is not finite at some x (ln 0, ln of a negative) leaves its model out.
  const norms = columns.map((column) => Math.hypot(...column));
  if (norms.some((norm) => norm === 0 || !Number.isFinite(norm))) return undefined;
  const q = columns.map((column, j) => column.map((value) => value / (norms[j] ?? 1)));
  const k = q.length;
  const r: number[][] = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let j = 0; j < k; j++) {
    const qj = q[j] ?? [];
    for (let i = 0; i < j; i++) {
      const qi = q[i] ?? [];
      const dot = qi.reduce((sum, value, row) => sum + value * (qj[row] ?? 0), 0);
      (r[i] ?? [])[j] = dot;
      for (let row = 0; row < qj.length; row++) qj[row] = (qj[row] ?? 0) - dot * (qi[row] ?? 0);
    }
    const length = Math.hypot(...qj);
    // A column that is (numerically) a combination of the earlier ones: the model is not identifiable here.
    if (length < 1e-12) return undefined;
    (r[j] ?? [])[j] = length;
    for (let row = 0; row < qj.length; row++) qj[row] = (qj[row] ?? 0) / length;
  }
  const qty = q.map((column) => column.reduce((sum, value, row) => sum + value * (y[row] ?? 0), 0));
  const scaled = new Array<number>(k).fill(0);
  for (let i = k - 1; i >= 0; i--) {
    let sum = qty[i] ?? 0;
    for (let j = i + 1; j < k; j++) sum -= (r[i]?.[j] ?? 0) * (scaled[j] ?? 0);
    scaled[i] = sum / (r[i]?.[i] ?? 1);
  }
  return scaled.map((value, j) => value / (norms[j] ?? 1));
}

function fitModel(model: GrowthModel, points: readonly Point[]): ModelFit | undefined {
  const terms = TERMS[model];
  const n = points.length;
  const k = terms.length;
  if (n < k + 2) return undefined;
  const y = points.map((point) => point.y);
  const columns = terms.map((term) => points.map((point) => term(point.x)));
  const solved = leastSquares(columns, y);
  if (solved === undefined) return undefined;
  // Rounding leaves terms of ~1e-14 on an exact fit (y = 2.5e-14 + 0.05·x); a term that moves no
  // measurement by a billionth of the largest is zero.
  const scale = Math.max(...y.map(Math.abs));
  const coefficients = solved.map((value, j) => (Math.max(...(columns[j] ?? []).map((term) => Math.abs(value * term))) < 1e-9 * scale ? 0 : value));
  const curve = { model, coefficients, r2: 0, residualStandardError: 0, rss: 0 };
  const mean = y.reduce((sum, value) => sum + value, 0) / n;
  const rss = points.reduce((sum, point) => sum + (point.y - evaluateFit(curve, point.x)) ** 2, 0);
  const tss = y.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  // Rounding leaves ~1e-13 of residual on an exact fit; below this floor two exact fits are equally good.
  const floor = Math.max(Number.MIN_VALUE, n * (1e-9 * scale) ** 2);
  return {
    ...curve,
    r2: tss === 0 ? 1 : 1 - rss / tss,
    residualStandardError: Math.sqrt(rss / (n - k)),
    rss: Math.max(floor, rss),
  };
}

/** Whether `richer` (one coefficient more than `simpler`, fitted to the same n points) is significantly better. */
function significantlyBetter(
  simpler: { readonly rss: number },
  richer: { readonly rss: number },
  n: number,
  richerCoefficients: number,
  level: 0.05 | 0.01 = 0.05,
): boolean {
  const dof = n - richerCoefficients;
  return dof > 0 && (simpler.rss - richer.rss) / (richer.rss / dof) > criticalF(dof, level);
}

/** The residual of y = a + b·x + c·term(x): how much `model`'s term adds to a line, nested so it can be tested. */
function lineWith(model: 'logarithmic' | 'n log n', points: readonly Point[]): { readonly rss: number } | undefined {
  const terms = [...TERMS.linear, ...TERMS[model].slice(1)];
  const y = points.map((point) => point.y);
  const solved = leastSquares(
    terms.map((term) => points.map((point) => term(point.x))),
    y,
  );
  if (solved === undefined) return undefined;
  const scale = Math.max(...y.map(Math.abs));
  const rss = points.reduce((sum, point) => sum + (point.y - terms.reduce((value, term, index) => value + (solved[index] ?? 0) * term(point.x), 0)) ** 2, 0);
  return { rss: Math.max(Number.MIN_VALUE, points.length * (1e-9 * scale) ** 2, rss) };
}

/** Fits every model and picks the growth by SELECTION_RULE; undefined with fewer than four points. */
export function fitGrowth(points: readonly Point[]): GrowthFit | undefined {
  if (points.length < MINIMUM_POINTS) return undefined;
  const fits = GROWTH_MODELS.map((model) => fitModel(model, points)).filter((fit) => fit !== undefined);
  const of = (model: GrowthModel): ModelFit | undefined => fits.find((fit) => fit.model === model);
  const constant = of('constant');
  if (constant === undefined) return undefined;
  const n = points.length;
  const xs = points.map((point) => point.x);
  const [low, high] = [Math.min(...xs), Math.max(...xs)];
  // Exact figures make the tiniest real trend significant (a resourceVersion gaining a digit adds bytes):
  // a growth must also move the cost by 1 % of its level over the measured range.
  const material = (fit: ModelFit): boolean =>
    Math.abs(evaluateFit(fit, high) - evaluateFit(fit, low)) >= MATERIAL_CHANGE * Math.abs(constant.coefficients[0] ?? 0);
  const growths = (['logarithmic', 'linear', 'n log n'] as const)
    .map(of)
    .filter((fit): fit is ModelFit => fit !== undefined && significantlyBetter(constant, fit, n, 2) && material(fit));
  if (growths.length === 0) return { chosen: constant, fits };
  const linear = growths.find((fit) => fit.model === 'linear');
  let chosen: ModelFit;
  if (linear === undefined) {
    chosen = growths.reduce((best, fit) => (fit.rss < best.rss ? fit : best));
  } else {
    // A line unless a curved law's term adds significantly to it.
    const curved = growths.filter((fit) => {
      if (fit.model !== 'logarithmic' && fit.model !== 'n log n') return false;
      const nested = lineWith(fit.model, points);
      return nested !== undefined && significantlyBetter(linear, nested, n, 3);
    });
    chosen = curved.reduce((best, fit) => (fit.rss < best.rss ? fit : best), linear);
  }
  const quadratic = of('quadratic');
  const line = of('linear');
  if (quadratic !== undefined && line !== undefined && quadratic.rss < chosen.rss && significantlyBetter(line, quadratic, n, 3, 0.01)) {
    // At 1 %: a cost measured with noise proportional to it makes a line's last steps scatter the most, which
    // a curvature fits by chance more often than the 5 % that decides growth at all.
    chosen = quadratic;
  }
  return { chosen, fits };
}
