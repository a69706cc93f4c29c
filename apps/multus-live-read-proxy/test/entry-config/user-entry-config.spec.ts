// Installing a user-provided multusConfigFile into the CNI configuration directory, on the real
// filesystem: what lands there, and that every refusal leaves the directory exactly as it was.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonConfig, parseDaemonConfig } from '../../src/daemon-config.ts';
import { EntryConfigError } from '../../src/entry-config/entry-config-error.ts';
import { installUserEntryConfig } from '../../src/entry-config/user-entry-config.ts';

/** A multus-shim configuration as an operator writes it by hand: indented, a trailing newline, non-ASCII. */
const SHIM_CONF =
  '{\n  "cniVersion": "1.0.0",\n  "name": "multus-cni-network",\n  "type": "multus-shim",\n  "daemonSocketDir": "/run/multus",\n  "comment": "nœud"\n}\n';

let root: string;
let sourceDir: string;
let cniConfigDir: string;

const daemonConfig = (multusConfigFile: string, dir = cniConfigDir): DaemonConfig =>
  parseDaemonConfig(Buffer.from(JSON.stringify({ multusConfigFile, cniConfigDir: dir })), join(root, 'daemon-config.json'));

/** Every name in the CNI configuration directory with its bytes, or "<directory>". */
async function snapshot(dir = cniConfigDir): Promise<Record<string, string>> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map(async (entry) => [entry.name, entry.isFile() ? await readFile(join(dir, entry.name), 'utf8') : '<directory>'] as const),
  );
  return Object.fromEntries(files);
}

async function refusal(config: DaemonConfig): Promise<EntryConfigError> {
  const error = await installUserEntryConfig(config).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof EntryConfigError)) throw new Error(`expected an EntryConfigError, got ${String(error)}`);
  return error;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mlrp-user-entry-'));
  sourceDir = join(root, 'site');
  cniConfigDir = join(root, 'net.d');
  await mkdir(sourceDir);
  await mkdir(cniConfigDir);
  await writeFile(join(cniConfigDir, '10-primary.conflist'), '{"cniVersion":"1.0.0","name":"primary","plugins":[{"type":"bridge"}]}');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('installUserEntryConfig', () => {
  it('copies the file byte for byte under its own base name and creates nothing else', async () => {
    const source = join(sourceDir, '70-site-multus.conf');
    await writeFile(source, SHIM_CONF);
    const before = await snapshot();
    expect(await installUserEntryConfig(daemonConfig(source))).toEqual({ source, path: join(cniConfigDir, '70-site-multus.conf'), outcome: 'copied' });
    expect(await snapshot()).toEqual({ ...before, '70-site-multus.conf': SHIM_CONF });
  });

  it('resolves a relative path against the working directory, as filepath.Abs does', async () => {
    await writeFile(join(sourceDir, 'multus.conf'), SHIM_CONF);
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const installed = await installUserEntryConfig(daemonConfig('site/multus.conf'));
      expect(installed).toEqual({ source: join(sourceDir, 'multus.conf'), path: join(cniConfigDir, 'multus.conf'), outcome: 'copied' });
    } finally {
      process.chdir(cwd);
    }
    expect(await readFile(join(cniConfigDir, 'multus.conf'), 'utf8')).toBe(SHIM_CONF);
  });

  it('replaces an existing destination by renaming a new file over it, never rewriting it in place', async () => {
    const source = join(sourceDir, '00-multus.conf');
    const destination = join(cniConfigDir, '00-multus.conf');
    await writeFile(source, SHIM_CONF);
    await writeFile(destination, '{"cniVersion":"1.0.0","name":"stale","type":"multus-shim"}');
    const old = await stat(destination);
    expect((await installUserEntryConfig(daemonConfig(source))).outcome).toBe('copied');
    expect(await readFile(destination, 'utf8')).toBe(SHIM_CONF);
    // A reader that opened the old file keeps reading the old bytes: the new ones are another inode.
    expect((await stat(destination)).ino).not.toBe(old.ino);
  });

  it('leaves a destination that already holds the bytes alone, even when the source is the destination', async () => {
    const source = join(sourceDir, '00-multus.conf');
    const destination = join(cniConfigDir, '00-multus.conf');
    await writeFile(source, SHIM_CONF);
    await writeFile(destination, SHIM_CONF);
    const copy = await stat(destination, { bigint: true });
    expect((await installUserEntryConfig(daemonConfig(source))).outcome).toBe('unchanged');
    // Upstream opens the source, then truncates the destination: the same file would end up empty.
    expect((await installUserEntryConfig(daemonConfig(destination))).outcome).toBe('unchanged');
    const after = await stat(destination, { bigint: true });
    expect({ ino: after.ino, mtime: after.mtimeNs, bytes: await readFile(destination, 'utf8') }).toEqual({
      ino: copy.ino,
      mtime: copy.mtimeNs,
      bytes: SHIM_CONF,
    });
  });

  it('accepts what libcni loads: a .json file, a type spelled in another case, a list', async () => {
    const accepted: [string, string][] = [
      ['multus.json', SHIM_CONF],
      // libcni decodes a .conf into NetConf, whose type field Go matches case-insensitively.
      ['shim.conf', '{"cniVersion":"1.0.0","name":"m","Type":"multus-shim"}'],
      ['multus.conflist', '{"cniVersion":"1.0.0","name":"m","plugins":[{"type":"multus-shim"},{"TYPE":"tuning"}]}'],
    ];
    for (const [name, bytes] of accepted) {
      await writeFile(join(sourceDir, name), bytes);
      expect((await installUserEntryConfig(daemonConfig(join(sourceDir, name)))).outcome).toBe('copied');
      expect(await readFile(join(cniConfigDir, name), 'utf8')).toBe(bytes);
    }
  });
});

describe('a refused installation names the file, says why, and leaves the directory as it was', () => {
  /** The destination of each case already exists, so that "untouched" is observable. */
  async function expectUntouched(config: DaemonConfig, destinationName: string, code: string, subject: string, detail: string): Promise<void> {
    await writeFile(join(cniConfigDir, destinationName), 'the previous bytes');
    const before = await snapshot();
    const error = await refusal(config);
    expect({ code: error.code, subject: error.subject }).toEqual({ code, subject });
    expect(error.message).toContain(detail);
    expect(await snapshot()).toEqual(before);
  }

  it('UnreadableUserCniConfig: the file is missing', async () => {
    const source = join(sourceDir, 'missing.conf');
    await expectUntouched(daemonConfig(source), 'missing.conf', 'UnreadableUserCniConfig', source, 'ENOENT');
  });

  it('UnreadableUserCniConfig: the path is a directory', async () => {
    const source = join(sourceDir, 'multus.conf');
    await mkdir(source);
    await expectUntouched(daemonConfig(source), 'multus.conf', 'UnreadableUserCniConfig', source, 'it is not a regular file');
  });

  // A blocking open would wait for a writer forever: the timeout is what fails then, so it is generous
  // enough never to fire on a loaded machine for an open that returns at once.
  it('UnreadableUserCniConfig: the path is a FIFO, refused at once rather than waiting for a writer', async () => {
    const source = join(sourceDir, 'multus.conf');
    execFileSync('mkfifo', [source]);
    await expectUntouched(daemonConfig(source), 'multus.conf', 'UnreadableUserCniConfig', source, 'it is not a regular file');
  }, 30_000);

  it('UnresolvableUserCniConfigPath: a relative path while the working directory is gone', async () => {
    const gone = join(root, 'gone');
    await mkdir(gone);
    await writeFile(join(cniConfigDir, 'multus.conf'), 'the previous bytes');
    const before = await snapshot();
    const cwd = process.cwd();
    process.chdir(gone);
    let installing: Promise<unknown>;
    try {
      await rmdir(gone);
      // The path is resolved synchronously, so the working directory is restored before anything else runs.
      installing = installUserEntryConfig(daemonConfig('multus.conf'));
    } finally {
      process.chdir(cwd);
    }
    const error = await installing.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(EntryConfigError);
    expect({ code: (error as EntryConfigError).code, subject: (error as EntryConfigError).subject }).toEqual({
      code: 'UnresolvableUserCniConfigPath',
      subject: 'multus.conf',
    });
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a name the runtime skips', 'multus.yaml', SHIM_CONF, 'loads only .conf, .conflist, .json files'],
    ['YAML', 'multus.conf', 'cniVersion: 1.0.0\ntype: multus-shim\n', 'at byte 0'],
    ['a truncated document', 'multus.conf', SHIM_CONF.slice(0, 40), 'at byte'],
    ['an empty file', 'multus.conf', '', 'at byte 0'],
    ['an array', 'multus.conf', `[${SHIM_CONF}]`, 'not a JSON object'],
    ['a repeated key, which each request would be refused for', 'multus.conf', '{"name":"a","name":"b","type":"multus-shim"}', 'duplicate key "name"'],
    ['no type', 'multus.conf', '{"cniVersion":"1.0.0","name":"m","daemonSocketDir":"/run/multus"}', 'has no type'],
    ['an empty type, the last of two spellings', 'multus.conf', '{"name":"m","type":"multus-shim","Type":""}', 'has no type'],
    ['a null type', 'multus.conf', '{"name":"m","type":null}', 'has no type'],
    ['a list without a name', 'multus.conflist', '{"cniVersion":"1.0.0","plugins":[{"type":"multus-shim"}]}', 'no string name'],
    [
      'a list whose name is spelled otherwise (libcni reads it as a map)',
      'multus.conflist',
      '{"Name":"m","plugins":[{"type":"multus-shim"}]}',
      'no string name',
    ],
    ['a list without plugins', 'multus.conflist', '{"name":"m","type":"multus-shim"}', 'has no plugins'],
    ['a list with no plugin', 'multus.conflist', '{"name":"m","plugins":[]}', 'has no plugins'],
    ['a list with an untyped plugin', 'multus.conflist', '{"name":"m","plugins":[{"type":"multus-shim"},{"name":"x"}]}', 'plugins[1] has no type'],
  ])('MalformedUserCniConfig: %s', async (_case, name, bytes, detail) => {
    const source = join(sourceDir, name);
    await writeFile(source, bytes);
    await expectUntouched(daemonConfig(source), name, 'MalformedUserCniConfig', source, detail);
  });

  it('UnwritableCniConfigDir: the CNI configuration directory does not exist, and is not created', async () => {
    const source = join(sourceDir, 'multus.conf');
    await writeFile(source, SHIM_CONF);
    const missing = join(root, 'no-net.d');
    const error = await refusal(daemonConfig(source, missing));
    expect({ code: error.code, subject: error.subject }).toEqual({ code: 'UnwritableCniConfigDir', subject: join(missing, 'multus.conf') });
    expect(await readdir(root)).toEqual(['net.d', 'site']);
  });

  it('UnwritableCniConfigDir: the destination is a directory, and no temporary file stays behind', async () => {
    const source = join(sourceDir, 'multus.conf');
    await writeFile(source, SHIM_CONF);
    await mkdir(join(cniConfigDir, 'multus.conf'));
    const before = await snapshot();
    const error = await refusal(daemonConfig(source));
    expect({ code: error.code, subject: error.subject }).toEqual({ code: 'UnwritableCniConfigDir', subject: join(cniConfigDir, 'multus.conf') });
    expect(await snapshot()).toEqual(before);
  });

  it('says what to do', async () => {
    const error = await refusal(daemonConfig(join(sourceDir, 'missing.conf')));
    expect(error.message).toMatch(/^UnreadableUserCniConfig: \/.*\/site\/missing\.conf: ENOENT.* — mount the file into the daemon’s container at this path/);
  });
});
