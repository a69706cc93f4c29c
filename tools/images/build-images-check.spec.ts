// `build-images.sh --check` judges an output directory as a build would, without building: an archive is up to
// date when it exists and its stamp in .stamps/ is the stamp of its inputs as they are now (the one
// `--stamps` prints and a build writes). The real-node suite refuses to import images it does not find up to
// date. The script runs from a copy of the checkout (HEAD's sources, this script as it is, a change left
// uncommitted so the commit reads "-dirty" throughout), so that nothing edited meanwhile in the checkout moves
// the stamps; output directories are temporary and hold empty archives: the check reads stamps, not archives.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARCHIVES = ['pause.tar', 'busybox.tar', 'dra-driver.tar', 'multus-live-read-proxy.tar', 'node-policy-operator.tar'];
/** What the Dockerfiles copy from the build context, and this script. */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.base.json', '.dockerignore', 'libs', 'apps', 'tools/multus-peer'];

let work: string;
let checkout: string;
let script: string;

function buildImages(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(script, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What `--stamps` prints: each archive's stamp. */
function currentStamps(): Map<string, string> {
  const printed = buildImages(['--stamps']);
  expect(printed.status).toBe(0);
  return new Map(
    printed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
}

/** An output directory as a build leaves it: the archives (empty here) and the stamps `--stamps` printed, `changed` replaced. */
function outputDir(name: string, stamps: ReadonlyMap<string, string>, options: { archives?: readonly string[]; changed?: string } = {}): string {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, '.stamps'), { recursive: true });
  for (const [archive, stamp] of stamps) fs.writeFileSync(path.join(dir, '.stamps', archive), `${archive === options.changed ? 'f'.repeat(64) : stamp}\n`);
  for (const archive of options.archives ?? ARCHIVES) fs.writeFileSync(path.join(dir, archive), '');
  return dir;
}

/** The lines of a check's report other than the archives it found up to date. */
const notUpToDate = (stdout: string): string[] => stdout.split('\n').filter((line) => line !== '' && !line.endsWith(': up to date'));

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'build-images-check-'));
  checkout = path.join(work, 'checkout');
  fs.mkdirSync(checkout);
  const archive = execFileSync('git', ['-C', ROOT, 'archive', 'HEAD', ...SOURCES], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', checkout], { input: archive });
  script = path.join(checkout, 'tools/images/build-images.sh');
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'tools/images/build-images.sh'), script);
  // The workspace's Node.js, whose hash the base images' stamp holds.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
  fs.writeFileSync(path.join(checkout, '.gitignore'), 'node_modules\n');
  const git = (...args: string[]): void => {
    execFileSync('git', ['-C', checkout, '-c', 'user.name=check', '-c', 'user.email=check@example.com', ...args], { stdio: 'ignore' });
  };
  git('init', '--quiet');
  git('add', '--all');
  git('commit', '--quiet', '--message', 'checkout');
  fs.writeFileSync(path.join(checkout, 'uncommitted'), '');
}, 120_000);

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('build-images.sh --stamps', () => {
  it('prints one sha256 stamp for each of the five archives, a different one for each', () => {
    const stamps = currentStamps();
    expect([...stamps.keys()]).toEqual(ARCHIVES);
    for (const stamp of stamps.values()) expect(stamp).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(stamps.values()).size).toBe(ARCHIVES.length);
  }, 60_000);

  it('prints the same stamps from another clone of the same commit at another path (as CI clones it)', () => {
    const elsewhere = path.join(work, 'another-clone');
    execFileSync('cp', ['-a', checkout, elsewhere]);
    const here = buildImages(['--stamps']);
    const there = spawnSync(path.join(elsewhere, 'tools/images/build-images.sh'), ['--stamps'], { encoding: 'utf8', timeout: 60_000 });
    expect(there.status).toBe(0);
    expect(there.stdout).toBe(here.stdout);
  }, 60_000);
});

describe('build-images.sh --check', () => {
  it('reports every archive missing in an empty directory, exits 1 and names the command that builds them', () => {
    const dir = path.join(work, 'empty');
    fs.mkdirSync(dir);
    const check = buildImages(['--check', dir]);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe(ARCHIVES.map((archive) => `${archive}: missing\n`).join(''));
    expect(check.stderr).toContain(`rebuild with: ${script} ${dir}`);
  }, 60_000);

  it('finds a directory whose stamps are those of the inputs as they are now up to date, and exits 0', () => {
    const check = buildImages(['--check', outputDir('current', currentStamps())]);
    expect(check.stdout).toBe(ARCHIVES.map((archive) => `${archive}: up to date\n`).join(''));
    expect(check.status).toBe(0);
  }, 60_000);

  it('names the one app whose stamp differs from its inputs’ as out of date, and only it', () => {
    const changed = 'multus-live-read-proxy.tar';
    const dir = outputDir('one-changed', currentStamps(), { changed });
    const check = buildImages(['--check', dir]);
    expect(check.status).toBe(1);
    expect(notUpToDate(check.stdout)).toEqual([`${changed}: out of date`]);
    expect(check.stderr).toContain(`not up to date in ${dir}: ${changed} (out of date); rebuild with: ${script} ${dir}`);
  }, 60_000);

  it('names the one app whose Dockerfile copies a source edited since the build as out of date', () => {
    const dir = outputDir('source-edited', currentStamps());
    const goMod = path.join(checkout, 'tools/multus-peer/go.mod');
    const built = fs.readFileSync(goMod, 'utf8');
    try {
      // Only the daemon's image builds its shim from this module.
      fs.writeFileSync(goMod, `${built}\n// edited\n`);
      const check = buildImages(['--check', dir]);
      expect(check.status).toBe(1);
      expect(notUpToDate(check.stdout)).toEqual(['multus-live-read-proxy.tar: out of date']);
    } finally {
      fs.writeFileSync(goMod, built);
    }
  }, 60_000);

  it('keeps the images up to date when a file they do not copy appears (a test’s output), and not when one they copy does', () => {
    const uncommitted = path.join(checkout, 'uncommitted');
    fs.rmSync(uncommitted);
    const added = path.join(checkout, 'libs/k8s/src/added.ts');
    try {
      // Built from a clean tree, as CI builds them before its tests run.
      const dir = outputDir('clean-then-untracked', currentStamps());
      fs.writeFileSync(uncommitted, '');
      const outside = buildImages(['--check', dir]);
      expect(notUpToDate(outside.stdout)).toEqual([]);
      expect(outside.status).toBe(0);
      // Every app image compiles libs/k8s/src.
      fs.writeFileSync(added, 'export {};\n');
      const inside = buildImages(['--check', dir]);
      expect(inside.status).toBe(1);
      expect(notUpToDate(inside.stdout)).toEqual([
        'dra-driver.tar: out of date',
        'multus-live-read-proxy.tar: out of date',
        'node-policy-operator.tar: out of date',
      ]);
    } finally {
      fs.rmSync(added, { force: true });
      fs.writeFileSync(uncommitted, '');
    }
  }, 60_000);

  it('reports an archive missing even where its stamp is current', () => {
    const dir = outputDir('archive-gone', currentStamps(), { archives: ARCHIVES.filter((archive) => archive !== 'dra-driver.tar') });
    const check = buildImages(['--check', dir]);
    expect(check.status).toBe(1);
    expect(notUpToDate(check.stdout)).toEqual(['dra-driver.tar: missing']);
  }, 60_000);
});
