// What a user meets first: `npm ci && npx sriov-dra --version` in a fresh clone of the committed HEAD, with
// nothing built. npm links the bins only to files that exist when it installs, so this needs the committed
// launchers, not dist/; npx must find the bin there rather than ask the registry (offline here, so asking fails).
// The clone is installed for real (npm ci from npm's cache, the `node` package's install script included:
// it provides the pinned Node.js the launcher falls back to) — about 45 s on two cores.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';

jest.setTimeout(600_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let work: string;
let clone: string;
let env: Record<string, string>;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-clone-'));
  clone = path.join(work, 'sriov-dra');
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  // The user's shell: the system's npm and Node.js, none of this workspace's node_modules/.bin.
  const userPath = (process.env['PATH'] ?? '').split(':').filter((dir) => !dir.includes('node_modules'));
  env = { PATH: userPath.join(':'), HOME: process.env['HOME'] ?? work, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, env, stdio: ['ignore', 'ignore', 'pipe'] });
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

it('npx sriov-dra --version prints the release and the clone’s commit, from source', () => {
  expect(fs.globSync('{apps,libs}/*/dist', { cwd: clone })).toEqual([]);
  const head = execFileSync('git', ['-C', clone, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const version = (JSON.parse(fs.readFileSync(path.join(clone, 'apps', 'dra-driver', 'package.json'), 'utf8')) as { version: string }).version;
  const run = spawnSync('npx', ['sriov-dra', '--version'], { cwd: clone, env, encoding: 'utf8' });
  expect(run).toMatchObject({ status: 0, stdout: `sriov-dra ${version} (commit ${head})\n` });
});
