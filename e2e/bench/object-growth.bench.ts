// §18.3 object growth (npm run bench -- e2e object-growth): 1,000 Pods × 8 VFs ≈ 8,000 live shadows created
// in steps on a real control plane, and at each step etcd's size, the stored objects, three LISTs and the
// memory of the components caching every NAD. Writes the series, their fitted growth, a table and a chart
// to bench-results/object-growth/, and reports each cost at the largest step.
import { fileURLToPath } from 'node:url';
import { writeGrowthReport } from '../../tools/bench/growth/growth-report.ts';
import { DEFAULT_OBJECT_GROWTH, measureObjectGrowth } from '../src/object-growth/object-growth.ts';

const OUT = fileURLToPath(new URL('../../bench-results/object-growth/', import.meta.url));

export const benchmarks = [
  {
    name: `object growth to ${String(DEFAULT_OBJECT_GROWTH.podSteps.at(-1) ?? 0)} Pods × 8 shadows: etcd, stored objects, LISTs, caching components' RSS (at the largest step)`,
    once: async () => {
      const series = await measureObjectGrowth({
        ...DEFAULT_OBJECT_GROWTH,
        onStep: ({ pods, shadows, figures }) => {
          console.log(`object growth: ${String(pods)} Pods, ${String(shadows)} shadows: ${JSON.stringify(figures)}`);
        },
      });
      const paths = writeGrowthReport(OUT, 'object-growth', series);
      console.log(`object growth report: ${paths.table}, ${paths.json}, ${paths.plots.join(', ')}`);
      return Object.fromEntries(series.map((one) => [`${one.cost} (${one.unit})`, one.points.at(-1)?.y ?? Number.NaN]));
    },
  },
];
