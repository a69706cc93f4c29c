// npm run bench [project [file]]: runs every `<project>/bench/*.bench.ts` (and the whole stack's, e2e/bench), prints a table and writes JSON
// results to bench-results/latest.json. Each benchmark may name a baseline measured in the same run (ratios are
// comparable across machines where absolute times are not) and a median target; a missed target makes
// the command exit non-zero. Benchmarks are never part of the test suite.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { z } from 'zod';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A workload timed over many repetitions. */
const repeatedSchema = z.object({
  name: z.string(),
  /** Issue target for the median of `run`, in milliseconds. */
  targetMedianMs: z.number().positive().optional(),
  run: z.function(),
  /** Same-run reference workload, e.g. the JSON.parse underneath a validation. */
  baseline: z.object({ name: z.string(), run: z.function() }).optional(),
});
/** A workload run once that reports its own figures (throughput, latency percentiles, counts). */
const onceSchema = z.object({ name: z.string(), once: z.function() });
const moduleSchema = z.object({
  benchmarks: z.array(z.union([repeatedSchema, onceSchema])),
  /** Starts what the benchmarks need (e.g. a control plane); its result is passed to teardown. */
  setup: z.function().optional(),
  teardown: z.function().optional(),
});

interface Report {
  readonly project: string;
  readonly name: string;
  readonly figures: Readonly<Record<string, number>>;
}

interface Measurement {
  readonly project: string;
  readonly name: string;
  readonly samples: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly baseline?: { readonly name: string; readonly medianMs: number; readonly ratio: number };
  readonly targetMedianMs?: number;
  readonly met?: boolean;
}

function benchFiles(): { project: string; file: string }[] {
  const e2e = join(root, 'e2e', 'bench');
  const whole = readdirSync(e2e)
    .filter((file) => file.endsWith('.bench.ts'))
    .map((file) => ({ project: 'e2e', file: join(e2e, file) }));
  return ['libs', 'apps']
    .flatMap((group) =>
      readdirSync(join(root, group), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => {
          const dir = join(root, group, entry.name, 'bench');
          let files: string[] = [];
          try {
            files = readdirSync(dir).filter((file) => file.endsWith('.bench.ts'));
          } catch {
            return [];
          }
          return files.map((file) => ({ project: entry.name, file: join(dir, file) }));
        }),
    )
    .concat(whole);
}

async function measure(name: string, run: () => unknown): Promise<{ samples: number; medianMs: number; p99Ms: number }> {
  const bench = new Bench({ time: 1_000, warmupTime: 200 });
  bench.add(name, run);
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (result === undefined || !('latency' in result)) throw new Error(`benchmark ${name} produced no result`);
  return { samples: result.latency.samplesCount, medianMs: result.latency.p50, p99Ms: result.latency.p99 };
}

const measurements: Measurement[] = [];
const reports: Report[] = [];
const only = process.argv[2];
// `npm run bench e2e real-node`: only that project's benchmark files whose name contains the second word.
const fileFilter = process.argv[3];
for (const { project, file } of benchFiles()) {
  if (only !== undefined && project !== only) continue;
  if (fileFilter !== undefined && !basename(file).includes(fileFilter)) continue;
  const loaded = moduleSchema.parse(await import(pathToFileURL(file).href));
  const context: unknown = await loaded.setup?.();
  for (const benchmark of loaded.benchmarks) {
    if ('once' in benchmark) {
      const figures = z.record(z.string(), z.number()).parse(await (benchmark.once as (context: unknown) => Promise<unknown>)(context));
      reports.push({ project, name: benchmark.name, figures });
      continue;
    }
    const run = benchmark.run as () => unknown;
    const own = await measure(benchmark.name, run);
    const baseline = benchmark.baseline === undefined ? undefined : await measure(benchmark.baseline.name, benchmark.baseline.run);
    measurements.push({
      project,
      name: benchmark.name,
      ...own,
      ...(baseline === undefined
        ? {}
        : { baseline: { name: benchmark.baseline?.name ?? '', medianMs: baseline.medianMs, ratio: own.medianMs / baseline.medianMs } }),
      ...(benchmark.targetMedianMs === undefined ? {} : { targetMedianMs: benchmark.targetMedianMs, met: own.medianMs < benchmark.targetMedianMs }),
    });
  }
  await (loaded.teardown as ((context: unknown) => Promise<void>) | undefined)?.(context);
}

const µs = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
for (const m of measurements) {
  const target = m.targetMedianMs === undefined ? '' : ` target < ${µs(m.targetMedianMs)}: ${m.met === true ? 'MET' : 'MISSED'}`;
  const baseline = m.baseline === undefined ? '' : ` (${m.baseline.ratio.toFixed(2)}× ${m.baseline.name} at ${µs(m.baseline.medianMs)})`;
  console.log(`${m.project}: ${m.name}: median ${µs(m.medianMs)}, p99 ${µs(m.p99Ms)}, ${m.samples} samples${baseline}${target}`);
}
for (const r of reports) {
  console.log(
    `${r.project}: ${r.name}: ${Object.entries(r.figures)
      .map(([key, value]) => `${key} ${Number.isInteger(value) ? value : value.toFixed(2)}`)
      .join(', ')}`,
  );
}
mkdirSync(join(root, 'bench-results'), { recursive: true });
const report = { node: process.version, cpus: (await import('node:os')).cpus().length, at: new Date().toISOString(), measurements, reports };
writeFileSync(join(root, 'bench-results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
if (measurements.some((m) => m.met === false)) process.exitCode = 1;
