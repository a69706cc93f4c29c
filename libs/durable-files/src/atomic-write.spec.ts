import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeAbandonedTemporaries, removeFileDurably, writeFileAtomic } from './atomic-write.ts';

const MODULE = fileURLToPath(new URL('./atomic-write.ts', import.meta.url));

/**
 * The flushes one writeFileAtomic call makes, counted by strace in a process of its own: whether data
 * reaches the disk is invisible to the writer, so the system calls are the evidence.
 */
async function flushesOf(path: string, options: string): Promise<string[]> {
  const trace = `${path}.strace`;
  const script = `const { writeFileAtomic } = await import(${JSON.stringify(MODULE)}); await writeFileAtomic(${JSON.stringify(path)}, 'x', ${options});`;
  execFileSync('strace', [
    '-f',
    '-qq',
    '-e',
    'trace=fsync,fdatasync,sync_file_range,syncfs',
    '-o',
    trace,
    process.execPath,
    '--input-type=module',
    '-e',
    script,
  ]);
  const calls = (await readFile(trace, 'utf8')).split('\n').filter((line) => /\b(fsync|fdatasync|sync_file_range|syncfs)\(/.test(line));
  await rm(trace);
  return calls;
}

/**
 * Runs writeFileAtomic in a process of its own that the kernel kills (SIGKILL, injected by strace) as it
 * enters the rename: a crash with the bytes written and the target not yet replaced.
 */
function killedBeforeRename(path: string, data: string): void {
  const script = `const { writeFileAtomic } = await import(${JSON.stringify(MODULE)}); await writeFileAtomic(${JSON.stringify(path)}, ${JSON.stringify(data)});`;
  const renames = 'rename,renameat,renameat2';
  expect(() =>
    execFileSync(
      'strace',
      [
        '-f',
        '-qq',
        '-o',
        '/dev/null',
        '-e',
        `trace=${renames}`,
        '-e',
        `inject=${renames}:signal=SIGKILL`,
        process.execPath,
        '--input-type=module',
        '-e',
        script,
      ],
      {
        stdio: 'ignore',
      },
    ),
  ).toThrow();
}

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'atomic-write-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates missing directories only when asked, with the mode asked for', async () => {
    const path = join(directory, 'a', 'b', 'cache');
    await expect(writeFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFileAtomic(path, 'x', { createDirectoryMode: 0o700 });
    expect(await readFile(path, 'utf8')).toBe('x');
    expect((await stat(join(directory, 'a', 'b'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('creates and then replaces a file, leaving no temporary file behind', async () => {
    const path = join(directory, 'state.json');
    await writeFileAtomic(path, '{"a":1}');
    await writeFileAtomic(path, '{"a":2}');
    expect(await readFile(path, 'utf8')).toBe('{"a":2}');
    expect(await readdir(directory)).toEqual(['state.json']);
  });

  it('keeps the previous file and removes its temporary file when the rename fails', async () => {
    const path = join(directory, 'state.json');
    // A non-empty directory under the target name makes rename fail after the bytes were written.
    await mkdir(path);
    await writeFile(join(path, 'keep'), 'previous');
    await expect(writeFileAtomic(path, 'new')).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(await readdir(directory)).toEqual(['state.json']);
    expect(await readFile(join(path, 'keep'), 'utf8')).toBe('previous');
  });

  it('flushes the file and its directory entry by default, and neither with flush: false', async () => {
    const durable = await flushesOf(join(directory, 'durable.json'), '{}');
    expect(durable.map((line) => /(fsync|fdatasync)\(/.exec(line)?.[1])).toEqual(['fsync', 'fsync']);
    expect(await flushesOf(join(directory, 'cache.json'), '{ flush: false }')).toEqual([]);
    expect(await readFile(join(directory, 'cache.json'), 'utf8')).toBe('x');
    expect((await readdir(directory)).sort()).toEqual(['cache.json', 'durable.json']);
  }, 30_000);

  it('fails without creating anything when the directory does not exist', async () => {
    await expect(writeFileAtomic(join(directory, 'missing', 'state.json'), 'x')).rejects.toThrow(/ENOENT/);
    expect(await readdir(directory)).toEqual([]);
  });
});

describe('removeFileDurably', () => {
  it('removes a file and reports whether it was there', async () => {
    const path = join(directory, 'spec.json');
    await writeFile(path, 'x');
    await expect(removeFileDurably(path)).resolves.toBe(true);
    await expect(removeFileDurably(path)).resolves.toBe(false);
    expect(await readdir(directory)).toEqual([]);
  });
});

describe('removeAbandonedTemporaries', () => {
  it("removes what a killed writer left for the owner's targets, and nothing else", async () => {
    const owned = join(directory, 'vendor-vf_claim.json');
    await writeFileAtomic(owned, 'previous');
    killedBeforeRename(owned, 'next');
    killedBeforeRename(join(directory, 'other-driver_claim.json'), 'theirs');
    await writeFile(join(directory, '.vendor-vf_notes.tmp'), 'not a temporary file of a write');
    const left = (await readdir(directory)).sort();
    expect(left.filter((name) => name.endsWith('.tmp'))).toHaveLength(3);

    const removed = await removeAbandonedTemporaries(directory, (target) => target.startsWith('vendor-vf_'));

    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatch(/^\.vendor-vf_claim\.json\./);
    expect((await readdir(directory)).sort()).toEqual(left.filter((name) => !removed.includes(name)));
    expect(await readFile(owned, 'utf8')).toBe('previous');
    await expect(removeAbandonedTemporaries(directory, (target) => target.startsWith('vendor-vf_'))).resolves.toEqual([]);
  }, 30_000);

  it('finds nothing in a directory that does not exist', async () => {
    await expect(removeAbandonedTemporaries(join(directory, 'missing'), () => true)).resolves.toEqual([]);
  });
});
