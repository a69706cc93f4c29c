// Each app's image as its Dockerfile assembles it from source (no container engine exists here:
// tools/images/dockerfile-image.ts lays the stages out in directories, honouring .dockerignore, and runs the
// shared build stage once as a build's layer cache does): the stages start from the pinned public images unless
// the build passes others (tools/images/build-images.sh does); nothing built on this machine goes in; the app
// starts from the image with the launch its memory figures were measured with; the labels and the user are
// the ones the chart and the repository state. Assembling installs the workspace from the lockfile (npm's cache)
// and compiles it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATOR_CHART_DIR, PROXY_CHART_DIR, multusBinaries, renderChartTemplate } from '@sriov-dra/k8s/testing';
import { parse as parseYaml } from 'yaml';
import { type ImageConfig, assembleImage, parseDockerfile } from './dockerfile-image.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APPS = ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'] as const;
type App = (typeof APPS)[number];
const COMMIT = '0123456789abcdef0123456789abcdef01234567-dirty';

const dockerfile = (app: App): string => fs.readFileSync(path.join(ROOT, 'apps', app, 'Dockerfile'), 'utf8');
const manifest = (app: App): { version: string; description: string; license: string } =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'apps', app, 'package.json'), 'utf8')) as { version: string; description: string; license: string };

let work: string;
const images = new Map<App, ImageConfig>();

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'images-'));
  // The Go stage, built here by tools/ from the same module and version.
  const shimStage = path.join(work, 'shim-stage');
  fs.mkdirSync(path.join(shimStage, 'out'), { recursive: true });
  fs.copyFileSync(multusBinaries().multusShim, path.join(shimStage, 'out', 'multus-shim'));
  const stageCache = new Map<string, string>();
  for (const app of APPS) {
    const options = { readyStages: { shim: shimStage }, buildArgs: { SRIOV_DRA_GIT_COMMIT: COMMIT }, stageCache };
    images.set(app, assembleImage(path.join(ROOT, 'apps', app, 'Dockerfile'), ROOT, path.join(work, app), options));
  }
}, 900_000);

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

function image(app: App): ImageConfig {
  const assembled = images.get(app);
  if (assembled === undefined) throw new Error(`${app}: not assembled`);
  return assembled;
}

/** The image's process: its entrypoint and command (or `args` in the command's place), its environment, nothing else. */
function run(config: ImageConfig, args?: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const [program, ...entry] = config.entrypoint;
  expect(program).toBe('node');
  const result = spawnSync(process.execPath, [...entry, ...(args ?? config.cmd)], {
    cwd: path.join(config.root, config.workdir),
    env: { ...config.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The launch main.ts's shebang documents (`#!/usr/bin/env -S NAME=value node <flags>`): environment and flags. */
function documentedLaunch(app: App): { env: Record<string, string>; flags: string[] } {
  const shebang = fs.readFileSync(path.join(ROOT, 'apps', app, 'src', 'main.ts'), 'utf8').split('\n')[0] ?? '';
  const words = shebang.replace(/^#!\/usr\/bin\/env -S /, '').split(/\s+/);
  const node = words.indexOf('node');
  if (!shebang.startsWith('#!/usr/bin/env -S ') || node === -1) throw new Error(`apps/${app}/src/main.ts: no launch in ${JSON.stringify(shebang)}`);
  return { env: Object.fromEntries(words.slice(0, node).map((word) => word.split('=') as [string, string])), flags: words.slice(node + 1) };
}

type Container = { env?: { name: string; value?: string }[] };
type PodSpec = { initContainers?: Container[]; securityContext?: { runAsUser?: number } };
const podSpec = (chart: string, template: string): PodSpec => {
  const [object] = renderChartTemplate(chart, template, { namespace: 'sriov-dra' }) as { spec: { template: { spec: PodSpec } } }[];
  if (object === undefined) throw new Error(`${template} rendered nothing`);
  return object.spec.template.spec;
};

describe('app images', () => {
  it('start from the Node.js the workspace pins and the Go release CI pins, by tag; or from the images a build passes', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    const nodeVersion = lock.packages['node_modules/node']?.version;
    const goVersion = /^GO_PINNED=\$\{GO_PINNED:-([0-9.]+)\}$/m.exec(fs.readFileSync(path.join(ROOT, 'tools', 'ci', 'toolchains.sh'), 'utf8'))?.[1];
    expect(nodeVersion).toMatch(/^24\.\d+\.\d+$/);
    expect(goVersion).toMatch(/^1\.26\.\d+$/);
    const passed = { NODE_IMAGE: 'localhost/node:test', GO_IMAGE: 'localhost/golang:test' };
    for (const app of APPS) {
      const from = (args: Record<string, string> = {}): string[] => parseDockerfile(dockerfile(app), args).map((stage) => stage.from);
      const expected = (node: string, go: string): string[] => parseDockerfile(dockerfile(app)).map((stage) => (stage.name === 'shim' ? go : node));
      expect(from()).toEqual(expected(`node:${nodeVersion ?? ''}-bookworm-slim`, `golang:${goVersion ?? ''}-bookworm`));
      expect(from(passed)).toEqual(expected(passed.NODE_IMAGE, passed.GO_IMAGE));
    }
  });

  it('share their first stage, which installs the workspace and compiles it; the image copies nothing from the context', () => {
    const [first, ...others] = APPS.map((app) => parseDockerfile(dockerfile(app))[0]);
    expect(first?.name).toBe('build');
    for (const other of others) expect(other).toEqual(first);
    expect(first?.instructions.map(({ keyword, args }) => `${keyword} ${args}`)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^RUN --mount=type=cache,\S+ +npm ci /), expect.stringMatching(/^RUN node_modules\/\.bin\/tsc -b /)]),
    );
    for (const app of APPS) {
      const copies = parseDockerfile(dockerfile(app))
        .at(-1)
        ?.instructions.filter(({ keyword }) => keyword === 'COPY');
      expect(copies?.filter(({ args }) => !args.startsWith('--from='))).toEqual([]);
    }
  });

  it.each(APPS)('%s: launched as its memory figures were measured (the shebang of main.ts), with the source commit', (app) => {
    const launch = documentedLaunch(app);
    expect(launch.flags).toContain('--no-turbofan');
    expect(image(app).entrypoint).toEqual(['node', ...launch.flags, `apps/${app}/dist/main.js`]);
    expect(image(app).env).toEqual({ ...launch.env, SRIOV_DRA_GIT_COMMIT: COMMIT });
  });

  it.each(APPS)('%s: labelled with its title, description, version, licence, source and the commit passed, and no build time', (app) => {
    const chart = parseYaml(fs.readFileSync(path.join(ROOT, 'charts', 'sriov-dra', 'Chart.yaml'), 'utf8')) as { appVersion: string; home: string };
    expect(manifest(app).version).toBe(chart.appVersion);
    expect(image(app).labels).toEqual({
      'org.opencontainers.image.title': `sriov-dra ${app}`,
      'org.opencontainers.image.description': manifest(app).description,
      'org.opencontainers.image.version': chart.appVersion,
      'org.opencontainers.image.licenses': manifest(app).license,
      'org.opencontainers.image.source': chart.home,
      'org.opencontainers.image.revision': COMMIT,
    });
  });

  it('dra-driver: starts from the image, as root, and stops at its first missing setting with the typed error', () => {
    expect(run(image('dra-driver'), ['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('--node-name [$NODE_NAME]') });
    const bare = run(image('dra-driver'));
    expect(bare.status).not.toBe(0);
    expect(bare.stderr + bare.stdout).toContain('InvalidComponentSetting');
    expect(image('dra-driver').user).toBe('root');
  });

  it('multus-live-read-proxy: starts from the image, as root, and carries the shim where the chart’s init container takes it', () => {
    const daemon = image('multus-live-read-proxy');
    expect(run(daemon, ['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('MULTUS_DAEMON_CONFIG') });
    expect(daemon.user).toBe('root');
    const shim = podSpec(PROXY_CHART_DIR, 'daemonset.yaml').initContainers?.[0]?.env?.find((variable) => variable.name === 'SHIM')?.value;
    expect(shim).toBeDefined();
    expect(fs.existsSync(path.join(daemon.root, shim ?? ''))).toBe(true);
  });

  it('node-policy-operator: runs `run` by default, as the user the chart runs it as', () => {
    const operator = image('node-policy-operator');
    expect(operator.cmd).toEqual(['run']);
    expect(run(operator, [...operator.cmd, '--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('--operator-namespace') });
    const bare = run(operator);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr + bare.stdout).toContain('operator-namespace');
    const user = podSpec(OPERATOR_CHART_DIR, 'deployment.yaml').securityContext?.runAsUser;
    expect(user).toBe(65532);
    expect(operator.user).toBe(`${String(user)}:${String(user)}`);
  });

  it('contain the compiled packages the app loads and no build state, tests or sources', () => {
    for (const app of APPS) {
      const root = path.join(image(app).root, image(app).workdir);
      expect(fs.existsSync(path.join(root, 'apps', app, 'dist', 'main.js'))).toBe(true);
      const leftovers = ['apps', 'libs'].flatMap((dir) =>
        fs
          .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
          .filter((entry) => /(^|\/)(src|test|bench)(\/|$)|\.tsbuildinfo$/.test(entry)),
      );
      expect(leftovers).toEqual([]);
    }
  });
});
