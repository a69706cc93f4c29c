// Builds the release archive behind the krew manifest: the admin command compiled from this working tree,
// its production dependencies as the lockfile pins them, and the launcher kubectl runs. krew unpacks only
// directories and regular files, so the workspace's package links become copies and npm's .bin links go.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KREW_PLUGIN_BIN } from './krew-manifest.ts';

/** The app the plugin runs, and the launcher module its bins import. */
const APP = 'apps/dra-driver';
const LAUNCHER = 'tools/launch/launch.js';
const WORKSPACE_SCOPE = '@sriov-dra/';

interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
}

function readManifest(file: string): PackageManifest {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageManifest;
}

/** The workspace libraries the app loads, each after the ones it depends on (tsc -b builds in the order given). */
function workspaceLibraries(repo: string): string[] {
  const dirOf = new Map(fs.readdirSync(path.join(repo, 'libs')).map((lib) => [readManifest(path.join(repo, 'libs', lib, 'package.json')).name, `libs/${lib}`]));
  const ordered: string[] = [];
  const visit = (dir: string): void => {
    for (const name of Object.keys(readManifest(path.join(repo, dir, 'package.json')).dependencies ?? {})) {
      const lib = dirOf.get(name);
      if (name.startsWith(WORKSPACE_SCOPE) && lib !== undefined && !ordered.includes(lib)) {
        visit(lib);
        ordered.push(lib);
      }
    }
  };
  visit(APP);
  return ordered;
}

function copy(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

/**
 * Compiles the libraries and the app in `staging` as the Dockerfile's build stage does (tsc -p
 * tsconfig.build.json each), against the workspace's installed packages: staging/node_modules links to
 * them, but its @sriov-dra/ packages are the staging copies, so each resolves its siblings' fresh dist/.
 */
function compile(repo: string, staging: string, packages: readonly string[]): void {
  copy(path.join(repo, 'tsconfig.base.json'), path.join(staging, 'tsconfig.base.json'));
  for (const dir of packages) {
    for (const file of ['package.json', 'tsconfig.build.json', 'src']) copy(path.join(repo, dir, file), path.join(staging, dir, file));
  }
  const modules = path.join(staging, 'node_modules');
  fs.mkdirSync(path.join(modules, WORKSPACE_SCOPE), { recursive: true });
  for (const entry of fs.readdirSync(path.join(repo, 'node_modules'))) {
    if (`${entry}/` !== WORKSPACE_SCOPE && entry !== '.bin') fs.symlinkSync(path.join(repo, 'node_modules', entry), path.join(modules, entry));
  }
  for (const dir of packages) fs.symlinkSync(path.join(staging, dir), path.join(modules, readManifest(path.join(staging, dir, 'package.json')).name));
  const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', ...packages.map((dir) => path.join(dir, 'tsconfig.build.json'))], { cwd: staging, stdio: 'inherit' });
}

/** Every symbolic link under `dir`: krew would refuse the archive with one. */
function symlinksUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isSymbolicLink())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * The archive's tree in `root`: the app's package.json, dist/ and bin/, the launcher, and node_modules with
 * the app's production dependencies (npm ci --omit=dev from the lockfile, as the image installs them) and the
 * workspace libraries' package.json and dist/ in place of npm's links to them.
 */
function assemble(repo: string, staging: string, root: string, libraries: readonly string[]): void {
  for (const file of ['package.json', 'package-lock.json']) copy(path.join(repo, file), path.join(root, file));
  for (const dir of [...libraries, APP]) copy(path.join(repo, dir, 'package.json'), path.join(root, dir, 'package.json'));
  execFileSync('npm', ['ci', '--omit=dev', '--workspace', APP, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.rmSync(path.join(root, 'node_modules', WORKSPACE_SCOPE), { recursive: true });
  for (const dir of libraries) {
    const target = path.join(root, 'node_modules', readManifest(path.join(repo, dir, 'package.json')).name);
    for (const file of ['package.json', 'dist']) copy(path.join(staging, dir, file), path.join(target, file));
  }
  copy(path.join(staging, APP, 'dist'), path.join(root, APP, 'dist'));
  copy(path.join(repo, APP, 'bin'), path.join(root, APP, 'bin'));
  copy(path.join(repo, LAUNCHER), path.join(root, LAUNCHER));
  for (const file of ['package.json', 'package-lock.json', 'libs']) fs.rmSync(path.join(root, file), { recursive: true, force: true });
  for (const bin of fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.name === '.bin')) {
    fs.rmSync(path.join(bin.parentPath, bin.name), { recursive: true });
  }
  for (const buildInfo of fs.globSync('**/dist/.tsbuildinfo', { cwd: root })) fs.rmSync(path.join(root, buildInfo));
  const links = symlinksUnder(root);
  if (links.length > 0) throw new Error(`the release tree still holds symbolic links, which krew cannot unpack: ${links.join(', ')}`);
  if (!fs.existsSync(path.join(root, KREW_PLUGIN_BIN))) throw new Error(`the release tree lacks the plugin executable ${KREW_PLUGIN_BIN}`);
}

export interface BuiltArchive {
  readonly file: string;
  readonly version: string;
  readonly sha256: string;
}

/** Builds `<outDir>/sriov-dra-v<version>.tar.gz` from the working tree of `repo` and returns its sha256. */
export function buildReleaseArchive(repo: string, outDir: string): BuiltArchive {
  const { version } = readManifest(path.join(repo, APP, 'package.json'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-release-'));
  try {
    const staging = path.join(work, 'build');
    const root = path.join(work, 'archive');
    const libraries = workspaceLibraries(repo);
    compile(repo, staging, [...libraries, APP]);
    assemble(repo, staging, root, libraries);
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(path.resolve(outDir), `sriov-dra-v${version}.tar.gz`);
    // Owner, order and file times fixed, so the same tree packs to the same bytes.
    execFileSync('tar', [
      '--use-compress-program=gzip -n',
      '-cf',
      file,
      '--sort=name',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--mtime=@0',
      '--hard-dereference',
      '-C',
      root,
      '.',
    ]);
    return { file, version, sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex') };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
