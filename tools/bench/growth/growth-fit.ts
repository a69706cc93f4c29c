// Which growth law a measured cost follows: least-squares fits of the usual complexity classes, and the
// simplest one that explains the measurements about as well as the best. Pure: numbers in, fits out.
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

/**
 * How much worse than the best fit the chosen, simpler fit may be, in AICc (Akaike's information criterion
 * with the small-sample correction): within 2 of the minimum a model has substantial support (Burnham &
 * Anderson). With the five to six steps a growth benchmark takes, the correction charges a third
 * coefficient heavily, so noise alone seldom buys the quadratic.
 */
export const AICC_TOLERANCE = 2;

/** Enough to weigh a constant against a one-term growth. */
export const MINIMUM_POINTS = 4;

export const SELECTION_RULE =
  `Each model (k coefficients) is fitted by least squares to the n points and scored by AICc = n·ln(RSS/n) + 2k + ` +
  `2k(k+1)/(n−k−1). The growth reported is the simplest model (constant, logarithmic, linear, n·log n, quadratic, in ` +
  `that order) whose AICc is within ${String(AICC_TOLERANCE)} of the smallest: its fit is not materially worse. A model ` +
  `needs at least k+2 points, a report at least 4; logarithmic and n·log n need every x > 0.`;

export interface ModelFit {
  readonly model: GrowthModel;
  /** Intercept first, then one per term of the model, in the order of `formula`. */
  readonly coefficients: readonly number[];
  /** 1 − RSS/TSS; 1 when the measurements do not vary and the fit is exact. */
  readonly r2: number;
  /** √(RSS / (n − k)). */
  readonly residualStandardError: number;
  /** The score SELECTION_RULE compares; lower is better. */
  readonly aicc: number;
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
  const curve = { model, coefficients, r2: 0, residualStandardError: 0, aicc: 0 };
  const mean = y.reduce((sum, value) => sum + value, 0) / n;
  const rss = points.reduce((sum, point) => sum + (point.y - evaluateFit(curve, point.x)) ** 2, 0);
  const tss = y.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  // Rounding leaves ~1e-13 of residual on an exact fit; below this floor two exact fits are equally good.
  const floor = Math.max(Number.MIN_VALUE, n * (1e-9 * scale) ** 2);
  return {
    ...curve,
    r2: tss === 0 ? 1 : 1 - rss / tss,
    residualStandardError: Math.sqrt(rss / (n - k)),
    aicc: n * Math.log(Math.max(floor, rss) / n) + 2 * k + (2 * k * (k + 1)) / (n - k - 1),
  };
}

/** Fits every model and picks the growth by SELECTION_RULE; undefined with fewer than four points. */
export function fitGrowth(points: readonly Point[]): GrowthFit | undefined {
  if (points.length < MINIMUM_POINTS) return undefined;
  const fits = GROWTH_MODELS.map((model) => fitModel(model, points)).filter((fit) => fit !== undefined);
  const best = Math.min(...fits.map((fit) => fit.aicc));
  const chosen = fits.find((fit) => fit.aicc <= best + AICC_TOLERANCE);
  return chosen === undefined ? undefined : { chosen, fits };
}
