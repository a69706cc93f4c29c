import { describe, expect, it } from '@jest/globals';
import { fitGrowth } from './growth-fit.ts';
import type { CostSeries } from './growth-point.ts';
import { escapeXml, niceTicks, renderGrowthChart, shortNumber, type ChartPanel } from './svg-chart.ts';
import { descendants, parseXml, textOf, type XmlElement } from './xml-document.ts';

const STEPS = [500, 1000, 2000, 4000, 8000];

function panel(cost: string, unit: string, law: (x: number) => number, steps = STEPS): ChartPanel {
  const series: CostSeries = { cost, unit, axis: 'live shadows', points: steps.map((x) => ({ x, y: law(x) })) };
  return { series, fit: fitGrowth(series.points) };
}

function byClass(root: XmlElement, name: string, className: string): XmlElement[] {
  return descendants(root).filter((element) => element.name === name && element.attributes['class'] === className);
}

const number = (element: XmlElement, attribute: string): number => Number(element.attributes[attribute]);

describe('renderGrowthChart', () => {
  const panels = [
    panel('etcd <db> size & "quota"', 'MiB', (x) => 2 + 0.004 * x),
    panel('LIST all NADs', 'ms', (x) => 0.05 * x, STEPS.slice(0, 4)),
    panel('operator RSS', 'MB', () => 90),
  ];
  const svg = parseXml(renderGrowthChart('object-growth: costs by live shadows', panels));

  it('is a well-formed SVG document 800 px wide', () => {
    expect(svg.name).toBe('svg');
    expect(svg.attributes['xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(svg.attributes['width']).toBe('800');
  });

  it('draws one panel per cost with its measured points and its fitted curve', () => {
    const drawn = descendants(svg).filter((element) => element.name === 'g' && element.attributes['class'] === 'panel');
    expect(drawn).toHaveLength(3);
    expect(drawn.map((one) => byClass(one, 'circle', 'measured').length)).toEqual([5, 4, 5]);
    expect(drawn.map((one) => byClass(one, 'polyline', 'fitted').length)).toEqual([1, 1, 1]);
  });

  it('draws a logarithmic fit over the measured x only, where the shared axis starts at 0 and ln 0 is not a number', () => {
    const chart = parseXml(renderGrowthChart('log', [panel('heap', 'MiB', (x) => 30 + 10 * Math.log(x))]));
    const [curve] = descendants(chart).filter((element) => element.name === 'polyline');
    const points = (curve?.attributes['points'] ?? '').split(' ').map((pair) => pair.split(',').map(Number));
    expect(points).toHaveLength(65);
    expect(points.flat().every(Number.isFinite)).toBe(true);
    const [drawn] = descendants(chart).filter((element) => element.name === 'g' && element.attributes['class'] === 'panel');
    const circles = byClass(drawn as XmlElement, 'circle', 'measured');
    expect(points[0]?.[0]).toBe(number(circles[0] as XmlElement, 'cx'));
    expect(points.at(-1)?.[0]).toBe(number(circles.at(-1) as XmlElement, 'cx'));
  });

  it('keeps a fitted curve that dips below zero inside its frame', () => {
    const steps = [504, 1000, 2000, 4000, 8000];
    const series: CostSeries = {
      cost: 'LIST time',
      unit: 'ms',
      axis: 'live shadows',
      // A logarithmic law below zero at the first step.
      points: steps.map((x) => ({ x, y: 200 * Math.log(x) - 1300 })),
    };
    const fit = fitGrowth(series.points);
    expect(fit?.chosen.model).toBe('logarithmic');
    const chart = parseXml(renderGrowthChart('dip', [{ series, fit }]));
    const [frame] = descendants(chart).filter((element) => element.name === 'rect' && element.attributes['class'] === 'frame');
    const [curve] = descendants(chart).filter((element) => element.name === 'polyline');
    const top = number(frame as XmlElement, 'y');
    const bottom = top + number(frame as XmlElement, 'height');
    const ys = (curve?.attributes['points'] ?? '').split(' ').map((pair) => Number(pair.split(',')[1]));
    expect(Math.max(...ys)).toBeLessThanOrEqual(bottom);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(top);
  });

  it('keeps markup in a cost name as text', () => {
    const titles = byClass(svg, 'text', 'title').map(textOf);
    expect(titles).toContain('etcd <db> size & "quota"');
    expect(byClass(svg, 'text', 'fit').map(textOf)).toContain('linear: y = 0.05·x (R² 1.000)');
  });

  it('puts every panel on the same x scale, even one measured over fewer steps, and higher costs higher up', () => {
    const [first, second] = descendants(svg).filter((element) => element.name === 'g' && element.attributes['class'] === 'panel');
    if (first === undefined || second === undefined) throw new Error('expected two panels');
    const firstXs = byClass(first, 'circle', 'measured').map((circle) => number(circle, 'cx'));
    const secondXs = byClass(second, 'circle', 'measured').map((circle) => number(circle, 'cx'));
    const offset = (secondXs[0] ?? 0) - (firstXs[0] ?? 0);
    expect(offset).toBe(400);
    expect(secondXs.map((x) => x - offset)).toEqual(firstXs.slice(0, 4));
    const heights = byClass(second, 'circle', 'measured').map((circle) => number(circle, 'cy'));
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
    expect(new Set(heights).size).toBe(4);
  });

  it('labels the axes with round ticks, the axis name and the unit', () => {
    const [first] = descendants(svg).filter((element) => element.name === 'g' && element.attributes['class'] === 'panel');
    if (first === undefined) throw new Error('expected a panel');
    const ticks = byClass(first, 'text', 'tick').map(textOf);
    expect(ticks).toEqual(expect.arrayContaining(['0', '2k', '4k', '6k', '8k']));
    expect(byClass(first, 'text', 'label').map(textOf)).toEqual(['live shadows', 'MiB']);
  });
});

describe('chart text and numbers', () => {
  it('escapes the five XML special characters', () => {
    expect(escapeXml(`a<b>&"c"'d`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d');
    expect(parseXml(`<t a="${escapeXml(`"<&'>`)}">${escapeXml('<&>')}</t>`)).toEqual({ name: 't', attributes: { a: `"<&'>` }, children: ['<&>'] });
  });

  it('places ticks 1, 2 or 5 × 10ⁿ apart', () => {
    expect(niceTicks(0, 8000)).toEqual([0, 2000, 4000, 6000, 8000]);
    expect(niceTicks(0, 0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });

  it('shortens tick labels with k, M and G', () => {
    expect([8000, 1_500_000, 3.2e9, 0.25, 120].map(shortNumber)).toEqual(['8k', '1.5M', '3.2G', '0.25', '120']);
  });
});

describe('parseXml', () => {
  it.each(['<a><b></a></b>', '<a x=1/>', '<a>1 < 2</a>', '<a>&nbsp;</a>', '<a x="1" x="2"/>', '<a>', '<a/><b/>'])('rejects %s', (text) => {
    expect(() => parseXml(text)).toThrow();
  });
});
