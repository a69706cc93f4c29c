// `helm template` of the umbrella chart, as GitOps tools render it (no cluster to look anything up in):
// the same values give the same bytes every time, with the defaults and with every optional feature on.
// A render that generated key material (a CA, a serving certificate) would differ on each run, and a
// GitOps tool would see the release drift on every sync.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { helmBinary } from '@sriov-dra/k8s/testing';
import { EVERY_FEATURE, EVERY_FEATURE_RUNTIME_CERTIFICATES } from './every-feature.ts';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deterministic-render-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function render(values: Record<string, unknown>): string {
  const file = join(dir, 'values.json');
  writeFileSync(file, JSON.stringify(values));
  const run = spawnSync(helmBinary(), ['template', 'sriov-dra', CHART, '--namespace', 'sriov-dra', '--include-crds', '--values', file], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
  });
  if (run.status !== 0) throw new Error(`helm template failed: ${run.stderr}`);
  return run.stdout;
}

/** The renders a release can make: the defaults, every feature on, and the features whose objects only they render. */
const RENDERS: [string, Record<string, unknown>][] = [
  ['the defaults', {}],
  ['every optional feature on', EVERY_FEATURE],
  ['every optional feature on, the webhook’s certificate set up at runtime', EVERY_FEATURE_RUNTIME_CERTIFICATES],
  ['the crds hook (node-policy-operator.crds.upstreamOwned=apply)', { 'node-policy-operator': { crds: { upstreamOwned: 'apply' } } }],
  [
    'the operator alongside the SR-IOV network operator (node-policy-operator.mode=alongside-upstream)',
    { 'node-policy-operator': { mode: 'alongside-upstream' } },
  ],
];

describe('helm template of charts/sriov-dra', () => {
  it.each(RENDERS)('renders the same bytes twice with %s', (_title, values) => {
    const first = render(values);
    const second = render(values);
    expect(first.length).toBeGreaterThan(10_000);
    expect(second).toBe(first);
  });

  it.each(RENDERS)('renders no private key or certificate with %s', (_title, values) => {
    expect(render(values)).not.toMatch(/BEGIN (CERTIFICATE|[A-Z ]*PRIVATE KEY)|LS0tLS1CRUdJTi|tls\.key:/);
  });
});

/** `helm lint --strict` of `chart` with `values`: its exit status and every WARNING or ERROR line. */
function lint(chart: string, values: Record<string, unknown>, ...args: string[]): { status: number | null; findings: string[] } {
  const file = join(dir, 'lint-values.json');
  writeFileSync(file, JSON.stringify(values));
  const run = spawnSync(helmBinary(), ['lint', '--strict', chart, '--values', file, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir },
  });
  return { status: run.status, findings: `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => /\[(WARNING|ERROR)\]/.test(line)) };
}

describe('helm lint --strict of charts/sriov-dra', () => {
  // `--with-subcharts` hands each subchart the umbrella's values file as it is, which every subchart's strict
  // schema refuses (`additional properties 'dra-driver' not allowed`): each subchart is linted with its own
  // part of the values and `global`, as the umbrella passes them, and the umbrella with them all.
  it.each(RENDERS.slice(1))('passes with %s, each subchart with its own values', (_title, values) => {
    const umbrella = lint(CHART, values);
    const subcharts = Object.fromEntries(
      ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'].map((component) => {
        const own = (values as Record<string, Record<string, unknown> | undefined>)[component] ?? {};
        const global = (values as { global?: unknown }).global;
        return [component, lint(join(CHART, 'charts', component), { ...own, ...(global === undefined ? {} : { global }) })];
      }),
    );
    const passed = { status: 0, findings: [] };
    expect({ umbrella, subcharts }).toEqual({
      umbrella: passed,
      subcharts: { 'dra-driver': passed, 'multus-live-read-proxy': passed, 'node-policy-operator': passed },
    });
  });

  it('finds what a subchart’s schema refuses in the umbrella’s values', () => {
    expect(lint(CHART, { 'dra-driver': { podLabels: { 'app.kubernetes.io/name': 'x' } } })).toEqual({
      status: 1,
      findings: ["[ERROR] templates/: values don't meet the specifications of the schema(s) in the following chart(s):"],
    });
  });
});
