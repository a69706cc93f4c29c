// A pending teardown record that does not decode stops every teardown of its container and deletes
// nothing: not the record, not the delegate cache, and no delegate's DEL runs (a DEL with lost inputs
// could release the wrong thing; an operator decides). A fake delNetwork stands in for the plugins.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { saveDelegates } from '../../src/cache/delegate-cache.ts';
import { DaemonMetrics } from '../../src/metrics.ts';
import type { CniRequest } from '../../src/server/cni-request.ts';
import { TeardownWorker } from '../../src/teardown/teardown-worker.ts';
import { isTeardownStateError } from '../../src/teardown/teardown-state-error.ts';
import { teardownRecordPath } from '../../src/teardown/teardown-store.ts';

let cniDir: string;
let deleted: string[];
let metrics: DaemonMetrics;

function worker(): TeardownWorker {
  return new TeardownWorker({
    settingsFor: () => ({ cniDir, binDirs: ['/opt/cni/bin'], chrootDir: '', resultCacheDir: cniDir, delegateTimeoutMs: 1_000 }),
    delNetwork: (_bytes, rt) => {
      deleted.push(rt.ifName);
      return Promise.resolve();
    },
    schedule: { initialMs: 10, maxMs: 20 },
    metrics,
    logger: pino({ level: 'silent' }),
  });
}

const request: CniRequest = {
  command: 'DEL',
  containerID: 'c-corrupt',
  netns: '/var/run/netns/none',
  ifName: 'eth0',
  args: [
    ['K8S_POD_NAMESPACE', 'ai'],
    ['K8S_POD_NAME', 'trainer'],
  ],
  path: '/opt/cni/bin',
  config: Buffer.from('{"cniVersion":"1.0.0","name":"multus-cni-network","type":"multus-shim"}'),
  env: {},
};

const CORRUPT = '{"version":1,"containerID":"c-corrupt","del":';

beforeEach(async () => {
  cniDir = await mkdtemp(join(tmpdir(), 'mlrp-corrupt-'));
  deleted = [];
  metrics = new DaemonMetrics();
  await saveDelegates(cniDir, 'c-corrupt', [{ name: 'primary', bytes: Buffer.from('{"cniVersion":"1.0.0","name":"primary","type":"bridge"}') }]);
  const record = teardownRecordPath(cniDir, 'c-corrupt');
  await mkdir(dirname(record), { recursive: true });
  await writeFile(record, CORRUPT);
});

afterEach(async () => {
  await rm(cniDir, { recursive: true, force: true });
});

async function state(): Promise<{ record: string; cache: boolean; deleted: string[] }> {
  return {
    record: await readFile(teardownRecordPath(cniDir, 'c-corrupt'), 'utf8'),
    cache: (await readFile(join(cniDir, 'c-corrupt')).catch(() => undefined)) !== undefined,
    deleted,
  };
}

describe('a corrupt pending teardown record', () => {
  it('fails the runtime’s DEL with TeardownRecordCorrupt, runs no DEL and deletes nothing', async () => {
    const teardowns = worker();
    const failure = await teardowns
      .runtimeDel(request, { cniDir, binDirs: [], chrootDir: '', resultCacheDir: cniDir, delegateTimeoutMs: 1_000 }, AbortSignal.timeout(5_000))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isTeardownStateError(failure, 'TeardownRecordCorrupt')).toBe(true);
    expect(await state()).toEqual({ record: CORRUPT, cache: true, deleted: [] });
    await teardowns.stop();
  });

  it('is counted as pending at start and left as it is, with its cache, by the replays', async () => {
    const teardowns = worker();
    await teardowns.resume(cniDir);
    // Long enough for the start-up attempt and several retries of the schedule, were any made.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await state()).toEqual({ record: CORRUPT, cache: true, deleted: [] });
    expect((await metrics.registry.getSingleMetric('sriov_dra_multus_pending_teardowns')?.get())?.values[0]?.value).toBe(1);
    await teardowns.stop();
  });

  it('is left as it is by GC even when the runtime no longer lists its attachment', async () => {
    const teardowns = worker();
    expect(await teardowns.replayStale(cniDir, new Set())).toBe(0);
    expect(await state()).toEqual({ record: CORRUPT, cache: true, deleted: [] });
    await teardowns.stop();
  });
});
