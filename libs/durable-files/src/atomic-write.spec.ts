import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeFileDurably, writeFileAtomic } from './atomic-write.ts';

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
