// Each app's image as its Dockerfile assembles it from the workspace's own build output (no container
// engine exists here: tools/images/dockerfile-image.ts lays the stages out in directories): every input
// exists, and the app starts from the image with its entrypoint, command and environment. The stages start
// from the public images unless the build passes others (tools/images/build-images.sh does). The chart and
// the images agree on what they share: the shim's path, the operator's user. Needs the apps built
// (this project's test target builds them first).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATOR_CHART_DIR, PROXY_CHART_DIR, multusBinaries, renderChartTemplate } from '@sriov-dra/k8s/testing';
import { type ImageConfig, assembleImage, parseDockerfile } from './dockerfile-image.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'images-'));
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

function build(app: string, readyStages: Record<string, string> = {}): ImageConfig {
  const dist = path.join(ROOT, 'apps', app, 'dist', 'main.js');
  if (!fs.existsSync(dist)) throw new Error(`${dist} is missing: build the app first (npx nx run ${app}:build)`);
  return assembleImage(path.join(ROOT, 'apps', app, 'Dockerfile'), ROOT, path.join(work, app), readyStages);
}

/** The image's process: its entrypoint and command (or `args` in the command's place), its environment, nothing else. */
function run(image: ImageConfig, args?: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const [program, ...entry] = image.entrypoint;
  expect(program).toBe('node');
  const result = spawnSync(process.execPath, [...entry, ...(args ?? image.cmd)], {
    cwd: path.join(image.root, image.workdir),
    env: { ...image.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

type Container = { env?: { name: string; value?: string }[] };
type PodSpec = { initContainers?: Container[]; securityContext?: { runAsUser?: number } };
const podSpec = (chart: string, template: string): PodSpec => {
  const [object] = renderChartTemplate(chart, template, { namespace: 'sriov-dra' }) as { spec: { template: { spec: PodSpec } } }[];
  if (object === undefined) throw new Error(`${template} rendered nothing`);
  return object.spec.template.spec;
};

describe('app images', () => {
  it('start from the public Debian bookworm Node.js 24 image (the shim from Go 1.26’s), or from those a build passes', () => {
    const passed = { NODE_IMAGE: 'localhost/node:test', GO_IMAGE: 'localhost/golang:test' };
    for (const app of ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator']) {
      const text = fs.readFileSync(path.join(ROOT, 'apps', app, 'Dockerfile'), 'utf8');
      const from = (args: Record<string, string> = {}): string[] => parseDockerfile(text, args).map((stage) => stage.from);
      const expected = (node: string, go: string): string[] => parseDockerfile(text).map((stage) => (stage.name === 'shim' ? go : node));
      expect(from()).toEqual(expected('node:24-bookworm-slim', 'golang:1.26'));
      expect(from(passed)).toEqual(expected(passed.NODE_IMAGE, passed.GO_IMAGE));
    }
  });

  it('dra-driver: starts from the image and stops at its first missing setting with the typed error', () => {
    const image = build('dra-driver');
    expect(run(image, ['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('--node-name [$NODE_NAME]') });
    const bare = run(image);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr + bare.stdout).toContain('InvalidComponentSetting');
    expect(image.user).toBe('root');
  }, 120_000);

  it('multus-live-read-proxy: starts from the image and carries the shim where the chart’s init container takes it', () => {
    // The Go stage, built here by tools/ from the same module and version.
    const shimStage = path.join(work, 'shim-stage');
    fs.mkdirSync(path.join(shimStage, 'out'), { recursive: true });
    fs.copyFileSync(multusBinaries().multusShim, path.join(shimStage, 'out', 'multus-shim'));
    const image = build('multus-live-read-proxy', { shim: shimStage });
    expect(run(image, ['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('MULTUS_DAEMON_CONFIG') });
    const shim = podSpec(PROXY_CHART_DIR, 'daemonset.yaml').initContainers?.[0]?.env?.find((variable) => variable.name === 'SHIM')?.value;
    expect(shim).toBeDefined();
    expect(fs.existsSync(path.join(image.root, shim ?? ''))).toBe(true);
  }, 120_000);

  it('node-policy-operator: runs `run` by default, as the user the chart runs it as', () => {
    const image = build('node-policy-operator');
    expect(image.cmd).toEqual(['run']);
    expect(run(image, [...image.cmd, '--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('--operator-namespace') });
    const bare = run(image);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr + bare.stdout).toContain('operator-namespace');
    expect(image.user).toBe(
      `${String(podSpec(OPERATOR_CHART_DIR, 'deployment.yaml').securityContext?.runAsUser)}:${String(podSpec(OPERATOR_CHART_DIR, 'deployment.yaml').securityContext?.runAsUser)}`,
    );
  }, 120_000);
});
