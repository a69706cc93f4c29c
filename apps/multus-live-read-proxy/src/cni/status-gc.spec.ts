// STATUS and GC of one network against recording plugins (a script generated into a temporary bin
// directory logs its CNI_* environment and stdin, and answers what the test configured) and a real result
// cache directory. Every expected value is written out literally.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CniPluginError } from './cni-error.ts';
import { NetworkGcError, gcNetwork, statusNetwork } from './status-gc.ts';

const RECORDER = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const name = path.basename(process.argv[1]);
const dir = path.dirname(process.argv[1]);
const stdin = JSON.parse(fs.readFileSync(0, 'utf8'));
const env = {};
for (const key of ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_ARGS']) env[key] = process.env[key];
fs.appendFileSync(path.join(dir, 'calls.log'), JSON.stringify({ plugin: name, env, stdin }) + '\\n');
const failure = (JSON.parse(fs.readFileSync(path.join(dir, 'failures.json'), 'utf8'))[name] || {})[env.CNI_COMMAND];
if (failure !== undefined) {
  process.stdout.write(JSON.stringify({ cniVersion: stdin.cniVersion, code: failure.code, msg: failure.msg }));
  process.exitCode = 1;
}
`;

interface Call {
  readonly plugin: string;
  readonly env: Record<string, string>;
  readonly stdin: Record<string, unknown>;
}

let work: string;
let cases = 0;

async function makeCase(failures: Record<string, Record<string, { code: number; msg: string }>> = {}) {
  cases += 1;
  const root = join(work, `case-${String(cases)}`);
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  for (const name of ['rec-a', 'rec-b']) {
    await writeFile(join(bin, name), RECORDER);
    await chmod(join(bin, name), 0o755);
  }
  await writeFile(join(bin, 'failures.json'), JSON.stringify(failures));
  const cacheDir = join(root, 'cache');
  await mkdir(join(cacheDir, 'results'), { recursive: true });
  return {
    options: { binDirs: [bin], timeoutMs: 30_000 },
    cacheDir,
    async calls(): Promise<Call[]> {
      const text = await readFile(join(bin, 'calls.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Call);
    },
    async entries(): Promise<string[]> {
      return (await readdir(join(cacheDir, 'results'))).sort();
    },
    async cache(name: string, entry: Record<string, unknown>): Promise<void> {
      await writeFile(join(cacheDir, 'results', name), JSON.stringify(entry));
    },
  };
}

function list(cniVersion: string, extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      cniVersion,
      name: 'rec-net',
      ...extra,
      plugins: [
        { type: 'rec-a', capabilities: { portMappings: true }, mode: 'a' },
        { type: 'rec-b', mode: 'b' },
      ],
    }),
  );
}

const RESULT = { cniVersion: '1.1.0', interfaces: [{ name: 'eth0', sandbox: '/var/run/netns/old' }], ips: [{ address: '10.1.0.5/24', interface: 0 }] };

function cacheEntry(network: string, containerID: string, ifName: string): Record<string, unknown> {
  return {
    kind: 'cniCacheV1',
    containerId: containerID,
    config: Buffer.from('{}').toString('base64'),
    ifName,
    networkName: network,
    netns: `/var/run/netns/${containerID}`,
    cniArgs: [['K8S_POD_NAME', `pod-${containerID}`]],
    capabilityArgs: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }], mac: '02:00:00:00:00:01' },
    result: RESULT,
  };
}

const NETWORK_WIDE_ENV = { CNI_CONTAINERID: '', CNI_NETNS: '', CNI_IFNAME: '', CNI_ARGS: '' };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mlrp-status-gc-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('statusNetwork', () => {
  it('asks every plugin of a 1.1.0 list in order, with the network’s name and version and nothing of an attachment', async () => {
    const run = await makeCase();
    await statusNetwork(list('1.1.0'), run.options);
    expect(await run.calls()).toEqual([
      {
        plugin: 'rec-a',
        env: { CNI_COMMAND: 'STATUS', ...NETWORK_WIDE_ENV },
        stdin: { type: 'rec-a', capabilities: { portMappings: true }, mode: 'a', name: 'rec-net', cniVersion: '1.1.0' },
      },
      { plugin: 'rec-b', env: { CNI_COMMAND: 'STATUS', ...NETWORK_WIDE_ENV }, stdin: { type: 'rec-b', mode: 'b', name: 'rec-net', cniVersion: '1.1.0' } },
    ]);
  });

  it('answers with the first failure, as the plugin said it, and asks no further plugin', async () => {
    const run = await makeCase({ 'rec-a': { STATUS: { code: 50, msg: 'bridge not up yet' } } });
    const error = await statusNetwork(list('1.1.0'), run.options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CniPluginError);
    expect({ code: (error as CniPluginError).cniCode, msg: (error as CniPluginError).msg }).toEqual({ code: 50, msg: 'bridge not up yet' });
    expect((await run.calls()).map((call) => call.plugin)).toEqual(['rec-a']);
  });

  it('asks nothing of a list older than 1.1.0, nor of a single-plugin configuration (libcni reads it as a list without plugins)', async () => {
    const run = await makeCase();
    await statusNetwork(list('1.0.0'), run.options);
    await statusNetwork(Buffer.from('{"cniVersion":"1.1.0","name":"single","type":"rec-a"}'), run.options);
    expect(await run.calls()).toEqual([]);
  });
});

describe('gcNetwork', () => {
  it('DELs the stale attachments of this network from their cache entries, keeps the valid ones, then GCs every plugin with the valid attachments', async () => {
    const run = await makeCase();
    await run.cache('rec-net-c-old-eth0', cacheEntry('rec-net', 'c-old', 'eth0'));
    await run.cache('rec-net-c-live-eth0', cacheEntry('rec-net', 'c-live', 'eth0'));
    await run.cache('other-net-c-old-eth0', cacheEntry('other-net', 'c-old', 'eth0'));
    // Not a libcni entry: passed over, neither deleted nor removed.
    await run.cache('rec-net-c-odd-eth0', { kind: 'somethingElse', containerId: 'c-odd', ifName: 'eth0', networkName: 'rec-net' });
    await gcNetwork(list('1.1.0'), run.cacheDir, [{ containerID: 'c-live', ifName: 'eth0' }], run.options);
    const staleEnv = {
      CNI_COMMAND: 'DEL',
      CNI_CONTAINERID: 'c-old',
      CNI_NETNS: '/var/run/netns/c-old',
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'K8S_POD_NAME=pod-c-old',
    };
    const valid = [{ containerID: 'c-live', ifname: 'eth0' }];
    expect(await run.calls()).toEqual([
      { plugin: 'rec-b', env: staleEnv, stdin: { type: 'rec-b', mode: 'b', name: 'rec-net', cniVersion: '1.1.0', prevResult: RESULT } },
      {
        plugin: 'rec-a',
        env: staleEnv,
        stdin: {
          type: 'rec-a',
          capabilities: { portMappings: true },
          mode: 'a',
          name: 'rec-net',
          cniVersion: '1.1.0',
          prevResult: RESULT,
          runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
        },
      },
      {
        plugin: 'rec-a',
        env: { CNI_COMMAND: 'GC', ...NETWORK_WIDE_ENV },
        stdin: {
          type: 'rec-a',
          capabilities: { portMappings: true },
          mode: 'a',
          'cni.dev/valid-attachments': valid,
          'cni.dev/attachments': valid,
          name: 'rec-net',
          cniVersion: '1.1.0',
        },
      },
      {
        plugin: 'rec-b',
        env: { CNI_COMMAND: 'GC', ...NETWORK_WIDE_ENV },
        stdin: { type: 'rec-b', mode: 'b', 'cni.dev/valid-attachments': valid, 'cni.dev/attachments': valid, name: 'rec-net', cniVersion: '1.1.0' },
      },
    ]);
    expect(await run.entries()).toEqual(['other-net-c-old-eth0', 'rec-net-c-live-eth0', 'rec-net-c-odd-eth0']);
  });

  it('attempts everything and reports every failure together; a stale attachment whose DEL failed keeps its entry', async () => {
    const run = await makeCase({ 'rec-b': { DEL: { code: 11, msg: 'busy' } }, 'rec-a': { GC: { code: 7, msg: 'bad store' } } });
    await run.cache('rec-net-c-old-eth0', cacheEntry('rec-net', 'c-old', 'eth0'));
    const error = await gcNetwork(list('1.1.0'), run.cacheDir, [], run.options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkGcError);
    expect((error as NetworkGcError).failures.map((failure) => failure.message)).toEqual([
      'failed to delete stale attachment c-old eth0: plugin type="rec-b" failed (del) for network "rec-net": CNI error 11: busy',
      'plugin type="rec-a" failed (gc) for network "rec-net": CNI error 7: bad store',
    ]);
    // DEL stopped at its first failure, as libcni's DelNetworkList does; GC went on to rec-b.
    expect((await run.calls()).map((call) => `${call.env['CNI_COMMAND'] ?? ''} ${call.plugin}`)).toEqual(['DEL rec-b', 'GC rec-a', 'GC rec-b']);
    expect(await run.entries()).toEqual(['rec-net-c-old-eth0']);
  });

  it('does nothing at all for a list with disableGC', async () => {
    const run = await makeCase();
    await run.cache('rec-net-c-old-eth0', cacheEntry('rec-net', 'c-old', 'eth0'));
    await gcNetwork(list('1.1.0', { disableGC: 'true' }), run.cacheDir, [], run.options);
    expect(await run.calls()).toEqual([]);
    expect(await run.entries()).toEqual(['rec-net-c-old-eth0']);
  });

  it('DELs the stale attachments of a list older than 1.1.0 but sends it no GC', async () => {
    const run = await makeCase();
    await run.cache('rec-net-c-old-eth0', cacheEntry('rec-net', 'c-old', 'eth0'));
    await gcNetwork(list('1.0.0'), run.cacheDir, [], run.options);
    expect((await run.calls()).map((call) => `${call.env['CNI_COMMAND'] ?? ''} ${call.plugin}`)).toEqual(['DEL rec-b', 'DEL rec-a']);
    expect(await run.entries()).toEqual([]);
  });

  it('drops a stale entry whose result cannot be read and DELs without a prevResult, as libcni does', async () => {
    const run = await makeCase();
    await run.cache('rec-net-c-old-eth0', { ...cacheEntry('rec-net', 'c-old', 'eth0'), result: { cniVersion: '1.1.0', ips: 'not a list' } });
    await gcNetwork(list('1.0.0'), run.cacheDir, [], run.options);
    expect((await run.calls()).map((call) => ({ plugin: call.plugin, prevResult: call.stdin['prevResult'] }))).toEqual([
      { plugin: 'rec-b', prevResult: undefined },
      { plugin: 'rec-a', prevResult: undefined },
    ]);
    expect(existsSync(join(run.cacheDir, 'results', 'rec-net-c-old-eth0'))).toBe(false);
  });
});
