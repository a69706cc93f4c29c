// npm run mutate [project] [-- stryker options]: mutation testing with StrykerJS for the projects that
// carry a `stryker.config.json` (libs/contract, libs/cni-render, and the pure modules of apps/dra-driver,
// apps/node-policy-operator and apps/multus-live-read-proxy; all five when no project is named).
// Reports land in reports/mutation/<project>/ (git-ignored). Runs are incremental: only mutants whose
// code or covering tests changed are retested; pass --force for a full run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
/** Project name → its directory, in the order a run without a name takes them. */
const projects = new Map([
  ['contract', 'libs/contract'],
  ['cni-render', 'libs/cni-render'],
  ['dra-driver', 'apps/dra-driver'],
  ['node-policy-operator', 'apps/node-policy-operator'],
  ['multus-live-read-proxy', 'apps/multus-live-read-proxy'],
]);

const args = process.argv.slice(2);
const named = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
const strykerArgs = named === undefined ? args : args.slice(1);
if (named !== undefined && !projects.has(named)) {
  console.error(`mutate: unknown project ${JSON.stringify(named)}; choose one of ${[...projects.keys()].join(', ')} or none for all`);
  process.exit(2);
}

// Property tests run 10^4 cases in the ordinary suite; each mutant reruns the tests covering it, so a
// smaller count keeps a mutation run within an hour rather than days. An explicit PROPERTY_RUNS wins.
// Static mutants (module-level constants) would each rerun the whole suite and are ignored by the
// configs (`ignoreStatic`); the report lists them as Ignored.
// (The cni-render differential tests against the Go decoders are left out of mutation runs: they need
// the peer binaries and check agreement with Go rather than our own rules. The apps run only their unit
// specs under src/: the tests under test/ start a control plane, far too slow to rerun per mutant.)
const env = { ...process.env, PROPERTY_RUNS: process.env['PROPERTY_RUNS'] ?? '100' };

let failed = false;
for (const project of named === undefined ? projects.keys() : [named]) {
  const config = `${String(projects.get(project))}/stryker.config.json`;
  if (!existsSync(`${root}${config}`)) throw new Error(`mutate: ${config} is missing`);
  console.log(`mutate: ${project} (${config})`);
  const run = spawnSync(process.execPath, ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', config, ...strykerArgs], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  // Stryker exits non-zero when the score is under the config's `thresholds.break`.
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
