// The krew release as `npm run krew:release` makes it, checked against what krew itself checks
// (sigs.k8s.io/krew internal/index/validation: ValidatePlugin; internal/download: a tar holds only
// directories and regular files) and then installed as krew installs it: unpacked, `files` applied, `bin`
// linked as kubectl-sriov_dra on PATH, and run by the real kubectl.
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { controlPlaneBinaries } from '@sriov-dra/k8s/testing';
import { parse as parseYaml } from 'yaml';
import type { KrewPlugin } from './krew-manifest.ts';

jest.setTimeout(300_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const URI = 'https://downloads.example.com/sriov-dra/sriov-dra-v0.1.0.tar.gz';
const COMMIT = 'fedcba9876543210fedcba9876543210fedcba98';
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'apps', 'dra-driver', 'package.json'), 'utf8')) as { version: string }).version;

let work: string;
let archive: string;
let manifest: KrewPlugin;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'krew-release-'));
  const out = path.join(work, 'out');
  execFileSync(process.execPath, ['--conditions=@sriov-dra/source', path.join(ROOT, 'tools', 'krew', 'krew-release.ts'), '--out', out, '--uri', URI], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  archive = path.join(out, `sriov-dra-v${VERSION}.tar.gz`);
  manifest = parseYaml(fs.readFileSync(path.join(out, 'sriov-dra.yaml'), 'utf8')) as KrewPlugin;
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

const platform = (): KrewPlugin['spec']['platforms'][number] => {
  const [only] = manifest.spec.platforms;
  if (only === undefined) throw new Error('the manifest has no platform');
  return only;
};

describe('the krew manifest', () => {
  it('is a Plugin of the API version krew reads, named for `kubectl sriov-dra`', () => {
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    // krew's IsSafePluginName, and the file name krew links the bin as: "-" becomes "_".
    expect(manifest.metadata.name).toMatch(/^[\w-]+$/);
    expect(`kubectl-${manifest.metadata.name.replaceAll('-', '_')}`).toBe('kubectl-sriov_dra');
  });

  it('has the spec fields krew requires: a one-line short description and the release as a v-prefixed semantic version', () => {
    expect(manifest.spec.shortDescription).toMatch(/^[^\r\n]+$/);
    expect(manifest.spec.version).toBe(`v${VERSION}`);
    expect(manifest.spec.version).toMatch(/^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
    expect(manifest.spec.caveats).toContain('Node.js 24 or later');
  });

  it("names the archive's address, its real sha256, the bin and files to install, and a selector on os alone", () => {
    expect(manifest.spec.platforms).toHaveLength(1);
    const { uri, sha256, bin, files, selector } = platform();
    expect(uri).toBe(URI);
    expect(sha256).toMatch(/^[a-f0-9]{64}$/);
    expect(sha256).toBe(createHash('sha256').update(fs.readFileSync(archive)).digest('hex'));
    expect(bin).toBe('apps/dra-driver/bin/kubectl-sriov_dra');
    expect(files).toEqual([{ from: '*', to: '.' }]);
    expect(selector).toEqual({ matchExpressions: [{ key: 'os', operator: 'In', values: ['linux', 'darwin'] }] });
  });
});

describe('the release archive', () => {
  const listing = (): string[] =>
    execFileSync('tar', ['-tvzf', archive], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .trim()
      .split('\n');

  it('holds only directories and regular files, as krew unpacks', () => {
    const types = new Set(listing().map((line) => line[0]));
    expect([...types].sort()).toEqual(['-', 'd']);
  });

  it("holds the manifest's bin as an executable file", () => {
    const entry = listing().find((line) => line.endsWith(` ./${platform().bin}`));
    expect(entry).toMatch(/^-rwxr-xr-x /);
  });

  it('installed as krew installs it, runs as `kubectl sriov-dra` and is listed by kubectl plugin list', () => {
    const store = path.join(work, 'store');
    const krewBin = path.join(work, 'bin');
    fs.mkdirSync(store);
    fs.mkdirSync(krewBin);
    execFileSync('tar', ['-xzf', archive, '-C', store]);
    fs.symlinkSync(path.join(store, platform().bin), path.join(krewBin, 'kubectl-sriov_dra'));
    // The archive carries no Node.js: the workspace's is first on PATH, as the caveat asks of a user.
    const env = { PATH: `${krewBin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: work, SRIOV_DRA_GIT_COMMIT: COMMIT };
    const kubectl = controlPlaneBinaries().kubectl;
    expect(spawnSync(kubectl, ['sriov-dra', '--version'], { encoding: 'utf8', env })).toMatchObject({
      status: 0,
      stdout: `sriov-dra ${VERSION} (commit ${COMMIT})\n`,
      stderr: '',
    });
    expect(spawnSync(kubectl, ['plugin', 'list'], { encoding: 'utf8', env }).stdout).toContain(`${path.join(krewBin, 'kubectl-sriov_dra')}\n`);
  });
});
