// npm run bench:against <revision> <project>: the project's repeated benchmarks at the working tree and at
// <revision>, measured in one process, alternating, three rounds — so both sides see the same machine
// load and "within N% of the previous median" is a same-run ratio, not a comparison of two days. The
// revision is checked out into a temporary git worktree whose workspace packages resolve to that
// revision's sources; benchmarks are paired by name.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';

const root = fileURLToPath(new URL('../../', import.meta.url));
const [revision, project] = process.argv.slice(2);
if (revision === undefined || project === undefined) {
  console.error('usage: npm run bench:against -- <revision> <project>   (e.g. 95d7604 cni-render)');
  process.exit(2);
}

interface Repeated {
  readonly name: string;
  readonly run: () => unknown;
}

async function repeatedBenchmarks(tree: string): Promise<Map<string, Repeated>> {
  const found = new Map<string, Repeated>();
  for (const group of ['libs', 'apps']) {
    const dir = join(tree, group, project ?? '', 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.bench.ts'))) {
      const loaded = (await import(pathToFileURL(join(dir, file)).href)) as { benchmarks?: unknown[] };
      for (const benchmark of loaded.benchmarks ?? []) {
        const candidate = benchmark as Partial<Repeated>;
        if (typeof candidate.name === 'string' && typeof candidate.run === 'function') found.set(candidate.name, candidate as Repeated);
      }
    }
  }
  return found;
}

/** node_modules for the worktree: the installed packages, with the workspace packages pointing into the worktree. */
function linkModules(tree: string): void {
  const modules = join(tree, 'node_modules');
  mkdirSync(join(modules, '@sriov-dra'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@sriov-dra') symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const entry of readdirSync(join(root, 'node_modules', '@sriov-dra'))) {
    const target = readlinkSync(join(root, 'node_modules', '@sriov-dra', entry)).replace(/^(\.\.\/)+/, '');
    symlinkSync(join(tree, target), join(modules, '@sriov-dra', basename(entry)));
  }
}

const tree = mkdtempSync(join(tmpdir(), 'sriov-dra-bench-'));
execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', '--quiet', tree, revision]);
try {
  linkModules(tree);
  const then = await repeatedBenchmarks(tree);
  const now = await repeatedBenchmarks(root);
  const paired = [...now.keys()].filter((name) => then.has(name));
  if (paired.length === 0) throw new Error(`no benchmark of ${project} has the same name at ${revision} and now`);
  for (const name of paired) {
    const medians: { then: number; now: number }[] = [];
    for (let round = 0; round < 3; round += 1) {
      const bench = new Bench({ time: 1_500, warmupTime: 300 });
      bench.add('then', then.get(name)?.run ?? (() => undefined));
      bench.add('now', now.get(name)?.run ?? (() => undefined));
      await bench.run();
      const [before, after] = bench.tasks.map((task) => ('latency' in task.result ? task.result.latency.p50 : NaN));
      medians.push({ then: before ?? NaN, now: after ?? NaN });
    }
    const µs = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
    const rounds = medians.map((m) => `${µs(m.then)} → ${µs(m.now)} (${((m.now / m.then - 1) * 100).toFixed(1)}%)`).join('; ');
    console.log(`${project}: ${name}: median at ${revision} → now, per round: ${rounds}`);
  }
} finally {
  rmSync(tree, { recursive: true, force: true });
  execFileSync('git', ['-C', root, 'worktree', 'prune']);
}
