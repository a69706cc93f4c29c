// The start-up sweep of unfinished writes removes the temporary files of the teardown records and never
// the records themselves, nor the teardown state directory beside the delegate caches.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAbandonedWrites } from '../../src/cache/abandoned-writes.ts';
import { parseDaemonConfig } from '../../src/daemon-config.ts';
import { teardownStateDirectories } from '../../src/teardown/teardown-store.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mlrp-sweep-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the start-up sweep of unfinished writes', () => {
  it('removes unfinished teardown and attachment records, and keeps every finished one', async () => {
    const cniDir = join(root, 'multus');
    const { teardowns, attachments } = teardownStateDirectories(cniDir);
    await mkdir(teardowns, { recursive: true });
    await mkdir(attachments, { recursive: true });
    const unfinished = [join(teardowns, '.c-1.json.0123456789ab.tmp'), join(attachments, '.c-1.json.ba9876543210.tmp')];
    const finished = [join(teardowns, 'c-1.json'), join(attachments, 'c-1.json'), join(cniDir, 'c-1')];
    for (const file of [...unfinished, ...finished]) await writeFile(file, '{}');
    const config = parseDaemonConfig(
      Buffer.from(JSON.stringify({ cniDir, cniConfigDir: join(root, 'net.d'), clusterNetwork: 'primary' })),
      join(root, 'daemon-config.json'),
    );

    const removed = await removeAbandonedWrites(config, undefined);

    expect({ unfinished: unfinished.map(existsSync), finished: finished.map(existsSync) }).toEqual({
      unfinished: [false, false],
      finished: [true, true, true],
    });
    expect(removed.map(({ directory }) => directory).sort()).toEqual([attachments, teardowns].sort());
  });
});
