// Delegates run chrooted into daemon-config.json's chrootDir, as upstream Multus runs them, on real
// processes: a root built around a static busybox, every libcni command, the real host-local keeping its
// leases in the root, chroot's own failures typed, and a plugin file being replaced waited for.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import { addNetwork, checkNetwork, delNetwork } from '../../src/cni/invoke.ts';
import type { RuntimeConf } from '../../src/cni/runtime-conf.ts';
import { gcNetwork, statusNetwork } from '../../src/cni/status-gc.ts';
import { MARKER, RECORDER_TYPE, createChrootRoot } from './chroot-root.ts';

const ROOTED = Buffer.from(`{"cniVersion":"1.1.0","name":"rooted","plugins":[{"type":"${RECORDER_TYPE}"}]}`);

let work: string;
let cases = 0;

async function caseDir(): Promise<string> {
  cases += 1;
  const dir = join(work, `case-${String(cases)}`);
  await mkdir(dir);
  return dir;
}

function runtime(dir: string, containerID: string): RuntimeConf {
  return { containerID, netns: '/var/run/netns/rooted', ifName: 'net1', args: [], capabilityArgs: {}, cacheDir: join(dir, 'cache') };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'no error',
    (error: unknown) => error,
  );
}

/** Keeps `path` open for writing, as an installer replacing the plugin does, for `ms` (forever without). */
async function writing(path: string, ms?: number): Promise<{ close(): Promise<void> }> {
  const handle = await open(path, 'r+');
  const close = (): Promise<void> => handle.close().catch(() => undefined);
  if (ms !== undefined) setTimeout(() => void close(), ms);
  return { close };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sriovdra-cni-chroot-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('a chrootDir', () => {
  it('runs ADD, CHECK, DEL, STATUS and GC (its stale DEL too) inside the root: the plugin sees the root’s files and writes there, not on the host', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    const options = { binDirs: [root.binDir], chrootDir: root.dir, timeoutMs: 10_000 };

    const result = await addNetwork(ROOTED, runtime(dir, 'c1'), options);
    await checkNetwork(ROOTED, runtime(dir, 'c1'), options);
    await delNetwork(ROOTED, runtime(dir, 'c1'), options);
    await statusNetwork(ROOTED, options);
    await addNetwork(ROOTED, runtime(dir, 'c2'), options);
    // c2 is in the result cache but not valid: GC deletes it, then runs GC.
    await gcNetwork(ROOTED, join(dir, 'cache'), [], options);

    expect(result).toEqual({ cniVersion: '1.1.0', dns: { domain: MARKER } });
    expect(await root.callsInRoot()).toEqual(['ADD:c1', 'CHECK:c1', 'DEL:c1', 'STATUS:', 'ADD:c2', 'DEL:c2', 'GC:']);
    expect(root.loggedOnHost()).toBe(false);
  });

  it('keeps the real host-local’s leases in the root: it allocates past a lease only the root holds, and DEL releases its own there', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    // The plugin as the daemon finds it, and the same file at the same path in the root.
    const binDir = join(dir, 'ipam-bin');
    for (const target of [binDir, join(root.dir, binDir)]) {
      await mkdir(target, { recursive: true });
      await copyFile(join(cacheRoot(), 'cni', 'bin', 'host-local'), join(target, 'host-local'));
      await chmod(join(target, 'host-local'), 0o755);
    }
    const dataDir = join(dir, 'var-lib-cni-networks');
    const leases = join(root.dir, dataDir, 'hl-net');
    await mkdir(leases, { recursive: true });
    await writeFile(join(leases, '10.244.66.2'), 'someone-else\r\neth0');
    const config = Buffer.from(
      JSON.stringify({
        cniVersion: '1.1.0',
        name: 'hl-net',
        plugins: [{ type: 'host-local', ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.244.66.0/24' }]] } }],
      }),
    );
    const options = { binDirs: [binDir], chrootDir: root.dir, timeoutMs: 10_000 };

    const result = await addNetwork(config, runtime(dir, 'c-ipam'), options);
    expect((result['ips'] as { address: string }[]).map((ip) => ip.address)).toEqual(['10.244.66.3/24']);
    expect((await readdir(leases)).filter((name) => name.startsWith('10.')).sort()).toEqual(['10.244.66.2', '10.244.66.3']);
    expect(existsSync(dataDir)).toBe(false);

    await delNetwork(config, runtime(dir, 'c-ipam'), options);
    expect((await readdir(leases)).filter((name) => name.startsWith('10.'))).toEqual(['10.244.66.2']);
  });

  it('types a plugin the daemon finds but the root lacks as ChrootLaunchFailed, naming the path, the root and chroot’s complaint', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    await rm(root.pluginInRoot);

    const error = await failure(addNetwork(ROOTED, runtime(dir, 'c1'), { binDirs: [root.binDir], chrootDir: root.dir, timeoutMs: 10_000 }));

    expect(error).toMatchObject({ code: 'ChrootLaunchFailed', network: 'rooted', pluginType: RECORDER_TYPE });
    expect((error as Error).message).toContain(`ADD: cannot run ${root.plugin} in ${root.dir}: chroot: failed to run command`);
    expect((error as Error).message).toContain('No such file or directory');
    expect(root.loggedOnHost()).toBe(false);
  });
});

describe('a plugin file being replaced (text file busy)', () => {
  it('is tried again a second later, chrooted, and runs once it is written', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    await writing(root.pluginInRoot, 300);

    const result = await addNetwork(ROOTED, runtime(dir, 'c1'), { binDirs: [root.binDir], chrootDir: root.dir, timeoutMs: 10_000 });

    expect(result).toEqual({ cniVersion: '1.1.0', dns: { domain: MARKER } });
    expect(await root.callsInRoot()).toEqual(['ADD:c1']);
  });

  it('is tried again a second later without a chrootDir too', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    await writing(root.plugin, 300);

    const result = await addNetwork(ROOTED, runtime(dir, 'c1'), { binDirs: [root.binDir], timeoutMs: 10_000 });

    // Run in the daemon's own root: no marker, and the log on the host.
    expect(result).toEqual({ cniVersion: '1.1.0', dns: { domain: 'none' } });
    expect(root.loggedOnHost()).toBe(true);
  });

  it('is given up on after the retries’ five seconds, with chroot’s complaint', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    const held = await writing(root.pluginInRoot);
    try {
      const started = performance.now();
      const error = await failure(addNetwork(ROOTED, runtime(dir, 'c1'), { binDirs: [root.binDir], chrootDir: root.dir, timeoutMs: 10_000 }));
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ code: 'ChrootLaunchFailed', pluginType: RECORDER_TYPE });
      expect((error as Error).message).toContain(`cannot run ${root.plugin} in ${root.dir}: chroot: failed to run command`);
      expect((error as Error).message).toContain('Text file busy');
      // Five waits of a second at least; how many attempts exactly is src/cni/text-file-busy.spec.ts's.
      expect(elapsed).toBeGreaterThanOrEqual(5000);
    } finally {
      await held.close();
    }
    expect(await root.callsInRoot()).toEqual([]);
  }, 15_000);

  it('is waited for no longer than the call’s deadline', async () => {
    const dir = await caseDir();
    const root = await createChrootRoot(dir);
    const held = await writing(root.pluginInRoot);
    try {
      const started = performance.now();
      const error = await failure(addNetwork(ROOTED, runtime(dir, 'c1'), { binDirs: [root.binDir], chrootDir: root.dir, timeoutMs: 1200 }));
      expect(error).toMatchObject({ code: 'PluginTimedOut', pluginType: RECORDER_TYPE });
      // The deadline ends the second wait; a wait that ignored it would end at 2000 ms at the earliest.
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await held.close();
    }
    expect(await root.callsInRoot()).toEqual([]);
  });
});
