// A build's identity from a package directory: the image build's commit in the environment, else the
// checkout's HEAD (with "-dirty" as tools/images/build-images.sh marks a tree with changes), else none.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { buildIdentity, versionLine } from './build-identity.ts';

let dir: string;
const packageDir = (): URL => pathToFileURL(`${dir}/`);
const git = (...args: string[]): string =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' }).trim();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'build-identity-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'demo', version: '3.4.5' }));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('buildIdentity', () => {
  it("takes the commit the image build set, over the checkout's", async () => {
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'demo');
    await expect(buildIdentity(packageDir(), { SRIOV_DRA_GIT_COMMIT: 'abc123-dirty' })).resolves.toEqual({ version: '3.4.5', commit: 'abc123-dirty' });
  });

  it("falls back to the checkout's HEAD, marked -dirty once the tree has changes", async () => {
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'demo');
    const head = git('rev-parse', 'HEAD');
    await expect(buildIdentity(packageDir(), { SRIOV_DRA_GIT_COMMIT: '' })).resolves.toEqual({ version: '3.4.5', commit: head });
    fs.writeFileSync(path.join(dir, 'changed.txt'), 'x');
    await expect(buildIdentity(packageDir(), {})).resolves.toEqual({ version: '3.4.5', commit: `${head}-dirty` });
  });

  it('has no commit outside a checkout without the environment', async () => {
    await expect(buildIdentity(packageDir(), {})).resolves.toEqual({ version: '3.4.5', commit: undefined });
  });
});

describe('versionLine', () => {
  it('is one line: program, release, commit (or unknown)', () => {
    expect(versionLine('sriov-dra', { version: '0.1.0', commit: 'abc' })).toBe('sriov-dra 0.1.0 (commit abc)\n');
    expect(versionLine('sriov-dra', { version: '0.1.0', commit: undefined })).toBe('sriov-dra 0.1.0 (commit unknown)\n');
  });
});
