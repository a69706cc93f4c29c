// The launcher every package bin goes through (tools/launch/launch.js), on a package laid out here: it runs
// the built dist/ entry when there is one, else the TypeScript source with the workspace's export condition;
// an older Node.js re-runs it on the workspace's pinned one, or says in one line which version it needs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { olderNode } from './older-node.ts';

jest.setTimeout(60_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMIT = '89abcdef0123456789abcdef0123456789abcdef';

let work: string;

/** A package `apps/demo` with a bin through the launcher, its entry importing a library that has a `@sriov-dra/source` export. */
function layOutPackage(dir: string): void {
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  fs.mkdirSync(path.join(dir, 'tools', 'launch'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'tools', 'launch', 'launch.js'), path.join(dir, 'tools', 'launch', 'launch.js'));
  write('apps/demo/package.json', JSON.stringify({ name: 'demo', type: 'module' }));
  write('apps/demo/bin/demo.js', "import { launch } from '../../../tools/launch/launch.js';\nlaunch(import.meta.url, 'main', 'demo');\n");
  write(
    'apps/demo/src/main.ts',
    "import { origin } from 'demo-lib';\nconst args: string[] = process.argv.slice(2);\nconsole.log(`source ${origin} ${args.join(' ')}`);\n",
  );
  // A workspace library: node_modules links to it, as npm links the workspace's packages.
  write(
    'libs/demo-lib/package.json',
    JSON.stringify({ name: 'demo-lib', type: 'module', exports: { '.': { '@sriov-dra/source': './src.ts', default: './index.js' } } }),
  );
  write('libs/demo-lib/src.ts', "export const origin: string = 'source-condition';\n");
  write('libs/demo-lib/index.js', "export const origin = 'default-condition';\n");
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync('../libs/demo-lib', path.join(dir, 'node_modules', 'demo-lib'));
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-'));
  layOutPackage(work);
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

const demoBin = (): string => path.join(work, 'apps', 'demo', 'bin', 'demo.js');

describe('a bin through the launcher', () => {
  it('runs the TypeScript source with the @sriov-dra/source condition while nothing is built', () => {
    const run = spawnSync(process.execPath, [demoBin(), 'a', 'b'], { encoding: 'utf8' });
    expect(run).toMatchObject({ status: 0, stdout: 'source source-condition a b\n', stderr: '' });
  });

  it('runs dist/ once it is built', () => {
    const dist = path.join(work, 'apps', 'demo', 'dist');
    fs.mkdirSync(dist);
    fs.writeFileSync(path.join(dist, 'main.js'), "console.log(`built ${process.argv.slice(2).join(' ')}`);\n");
    try {
      const run = spawnSync(process.execPath, [demoBin(), 'a', 'b'], { encoding: 'utf8' });
      expect(run).toMatchObject({ status: 0, stdout: 'built a b\n', stderr: '' });
    } finally {
      fs.rmSync(dist, { recursive: true });
    }
  });

  it('started by an older Node.js with no pinned Node.js above it, prints one line naming the version it needs', () => {
    const older = olderNode();
    const run = spawnSync(older.path, [demoBin(), '--version'], { encoding: 'utf8' });
    expect(run).toMatchObject({
      status: 1,
      stdout: '',
      stderr: `demo needs Node.js 24 or later, and this is Node.js ${older.version}: put Node.js 24 first on PATH\n`,
    });
  });

  it("started by an older Node.js in the workspace, re-runs on the workspace's pinned Node.js", () => {
    const run = spawnSync(olderNode().path, [path.join(ROOT, 'apps', 'dra-driver', 'bin', 'sriov-dra.js'), '--version'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', SRIOV_DRA_GIT_COMMIT: COMMIT },
    });
    expect(run).toMatchObject({ status: 0, stdout: `sriov-dra 0.1.0 (commit ${COMMIT})\n`, stderr: '' });
  });
});
