// A dependency-free SVG line chart of costs along one axis: small multiples, one panel per cost, all
// panels on the same x range so a glance compares how they grow; measured points as dots, the fitted
// growth as a line. Pure: series in, SVG text out.
import { evaluateFit, fitQuality, formulaOf, type GrowthFit } from './growth-fit.ts';
import type { CostSeries } from './growth-point.ts';

export interface ChartPanel {
  readonly series: CostSeries;
  readonly fit: GrowthFit | undefined;
}

const WIDTH = 800;
const PANEL_HEIGHT = 230;
const HEADER = 40;
const MARGIN = { left: 64, right: 16, top: 34, bottom: 46 };
const CURVE_SAMPLES = 64;

/** Text for an SVG text node or a double-quoted attribute. */
export function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');
}

/** Round tick positions (1, 2 or 5 × 10ⁿ apart) covering [low, high]. */
export function niceTicks(low: number, high: number, wanted = 5): number[] {
  if (!(high > low)) return [low];
  const rough = (high - low) / wanted;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((factor) => factor * magnitude >= rough) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let tick = Math.ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

/** 8000 → "8k", 0.25 → "0.25", 3.2e9 → "3.2G": short enough for a tick label. */
export function shortNumber(value: number): string {
  const magnitude = Math.abs(value);
  for (const [limit, suffix] of [
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ] as const) {
    if (magnitude >= limit) return `${String(Number((value / limit).toPrecision(3)))}${suffix}`;
  }
  return String(Number(value.toPrecision(3)));
}

const coordinate = (value: number): string => value.toFixed(1);

function renderPanel(panel: ChartPanel, left: number, top: number, width: number, xRange: readonly [number, number]): string {
  const { series, fit } = panel;
  const plot = {
    left: left + MARGIN.left,
    top: top + MARGIN.top,
    width: width - MARGIN.left - MARGIN.right,
    height: PANEL_HEIGHT - MARGIN.top - MARGIN.bottom,
  };
  const [xLow, xHigh] = xRange;
  // The fitted curve spans what was measured: no extrapolation, and no ln 0 where the shared axis starts at 0.
  const measuredXs = series.points.map((point) => point.x);
  const [from, to] = [Math.min(...measuredXs), Math.max(...measuredXs)];
  const curve = fit === undefined ? [] : Array.from({ length: CURVE_SAMPLES + 1 }, (_, i) => from + ((to - from) * i) / CURVE_SAMPLES);
  const curveValues = curve.map((x) => (fit === undefined ? 0 : evaluateFit(fit.chosen, x)));
  const ys = [...series.points.map((point) => point.y), ...curveValues];
  // Costs are read against zero: a y axis starting near the data would make 2 % look like 200 %.
  const yTicks = niceTicks(Math.min(0, ...ys), Math.max(...ys, 0) === 0 ? 1 : Math.max(...ys, 0));
  const yLow = Math.min(...yTicks, ...ys);
  const yHigh = Math.max(...yTicks, Math.max(...ys));
  const sx = (x: number) => plot.left + (xHigh === xLow ? plot.width / 2 : ((x - xLow) / (xHigh - xLow)) * plot.width);
  const sy = (y: number) => plot.top + plot.height - (yHigh === yLow ? plot.height / 2 : ((y - yLow) / (yHigh - yLow)) * plot.height);
  const xTicks = niceTicks(xLow, xHigh);
  const parts: string[] = [
    `<g class="panel">`,
    `<text x="${coordinate(left + MARGIN.left)}" y="${coordinate(top + 16)}" class="title">${escapeXml(series.cost)}</text>`,
    `<text x="${coordinate(left + MARGIN.left)}" y="${coordinate(top + 29)}" class="fit">${escapeXml(
      fit === undefined ? 'too few points to fit' : `${fit.chosen.model}: ${formulaOf(fit.chosen)} (${fitQuality(fit.chosen)})`,
    )}</text>`,
    `<rect x="${coordinate(plot.left)}" y="${coordinate(plot.top)}" width="${coordinate(plot.width)}" height="${coordinate(plot.height)}" class="frame"/>`,
  ];
  for (const tick of yTicks) {
    parts.push(
      `<line x1="${coordinate(plot.left)}" x2="${coordinate(plot.left + plot.width)}" y1="${coordinate(sy(tick))}" y2="${coordinate(sy(tick))}" class="grid"/>`,
      `<text x="${coordinate(plot.left - 6)}" y="${coordinate(sy(tick) + 4)}" class="tick" text-anchor="end">${escapeXml(shortNumber(tick))}</text>`,
    );
  }
  for (const tick of xTicks) {
    parts.push(
      `<line x1="${coordinate(sx(tick))}" x2="${coordinate(sx(tick))}" y1="${coordinate(plot.top + plot.height)}" y2="${coordinate(plot.top + plot.height + 4)}" class="axis"/>`,
      `<text x="${coordinate(sx(tick))}" y="${coordinate(plot.top + plot.height + 16)}" class="tick" text-anchor="middle">${escapeXml(shortNumber(tick))}</text>`,
    );
  }
  parts.push(
    `<text x="${coordinate(plot.left + plot.width / 2)}" y="${coordinate(plot.top + plot.height + 34)}" class="label" text-anchor="middle">${escapeXml(series.axis)}</text>`,
    `<text transform="translate(${coordinate(left + 14)} ${coordinate(plot.top + plot.height / 2)}) rotate(-90)" class="label" text-anchor="middle">${escapeXml(series.unit)}</text>`,
  );
  if (fit !== undefined) {
    const path = curve.map((x, i) => `${coordinate(sx(x))},${coordinate(sy(curveValues[i] ?? 0))}`).join(' ');
    parts.push(`<polyline points="${path}" class="fitted"/>`);
  }
  for (const point of series.points) {
    parts.push(
      `<circle cx="${coordinate(sx(point.x))}" cy="${coordinate(sy(point.y))}" r="3.5" class="measured"><title>${escapeXml(
        `${shortNumber(point.x)} ${series.axis}: ${String(point.y)} ${series.unit}`,
      )}</title></circle>`,
    );
  }
  parts.push('</g>');
  return parts.join('\n');
}

/** One chart for one axis: a panel per cost, two to a row when there are more than one. */
export function renderGrowthChart(title: string, panels: readonly ChartPanel[]): string {
  const columns = panels.length > 1 ? 2 : 1;
  const rows = Math.ceil(panels.length / columns);
  const height = HEADER + rows * PANEL_HEIGHT;
  const xs = panels.flatMap((panel) => panel.series.points.map((point) => point.x));
  const xRange: [number, number] = xs.length === 0 ? [0, 1] : [Math.min(0, ...xs), Math.max(...xs)];
  const panelWidth = WIDTH / columns;
  const body = panels.map((panel, index) =>
    renderPanel(panel, (index % columns) * panelWidth, HEADER + Math.floor(index / columns) * PANEL_HEIGHT, panelWidth, xRange),
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH)}" height="${String(height)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" font-family="sans-serif">`,
    '<style>',
    '.title { font-size: 13px; font-weight: bold; fill: #222 } .fit { font-size: 11px; fill: #b4441a } .tick { font-size: 11px; fill: #444 }',
    '.label { font-size: 11px; fill: #222 } .frame { fill: none; stroke: #999 } .grid { stroke: #e4e4e4 } .axis { stroke: #999 }',
    '.fitted { fill: none; stroke: #b4441a; stroke-width: 1.5 } .measured { fill: #1f5fa8 } .legend { font-size: 12px; fill: #222 }',
    '</style>',
    `<rect width="${String(WIDTH)}" height="${String(height)}" fill="#fff"/>`,
    `<text x="12" y="22" class="title">${escapeXml(title)}</text>`,
    `<circle cx="${String(WIDTH - 250)}" cy="18" r="3.5" class="measured"/><text x="${String(WIDTH - 242)}" y="22" class="legend">measured</text>`,
    `<line x1="${String(WIDTH - 160)}" x2="${String(WIDTH - 136)}" y1="18" y2="18" class="fitted"/><text x="${String(WIDTH - 130)}" y="22" class="legend">fitted growth</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
