// The operator's /metrics as Prometheus scrapes it, read back sample by sample.
import { expect } from '@jest/globals';
import type { Operator } from '../src/operator.ts';

export async function scrape(operator: Operator): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${String(operator.healthPort)}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of the sample `name` whose labels are exactly `labels`; undefined when the exposition has none. */
export function sample(exposition: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of exposition.split('\n')) {
    const match = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = (match[2] ?? '').split(',').filter(Boolean).sort().join(',');
    if (found === wanted) return Number(match[3]);
  }
  return undefined;
}
