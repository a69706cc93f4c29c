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
import { EVERY_FEATURE } from './every-feature.ts';

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

describe('helm template of charts/sriov-dra', () => {
  it.each([
    ['the defaults', {}],
    ['every optional feature on', EVERY_FEATURE],
  ])('renders the same bytes twice with %s', (_title, values) => {
    const first = render(values);
    const second = render(values);
    expect(first.length).toBeGreaterThan(10_000);
    expect(second).toBe(first);
  });

  it('renders no private key or certificate with the defaults or every feature on', () => {
    for (const values of [{}, EVERY_FEATURE]) expect(render(values)).not.toMatch(/BEGIN (CERTIFICATE|[A-Z ]*PRIVATE KEY)|LS0tLS1CRUdJTi|tls\.key:/);
  });
});
