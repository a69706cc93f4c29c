// A recording plugin (a script generated into a temporary bin directory) logs every call: its CNI_*
// environment and its exact stdin, and answers what the test configured for its name and command. Every
// expected value below is written out literally.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, watch, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CniInvocationError, CniPluginError } from '../../src/cni/cni-error.ts';
import { addNetwork, checkNetwork, delNetwork } from '../../src/cni/invoke.ts';
import type { RuntimeConf } from '../../src/cni/runtime-conf.ts';
import { waitFor } from '@sriov-dra/k8s/testing';

interface Behaviour {
  readonly stdout?: unknown;
  readonly stderr?: string;
  readonly exit?: number;
}
type Behaviours = Record<string, Partial<Record<'ADD' | 'CHECK' | 'DEL', Behaviour>>>;

interface Call {
  readonly plugin: string;
  readonly pid: number;
  readonly env: Record<string, string | undefined>;
  readonly stdinText: string;
  readonly stdin: Record<string, unknown>;
}

const RECORDER = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const name = path.basename(process.argv[1]);
const dir = path.dirname(process.argv[1]);
const stdinText = fs.readFileSync(0, 'utf8');
const env = {};
for (const key of ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_ARGS', 'CNI_PATH']) env[key] = process.env[key];
fs.appendFileSync(path.join(dir, 'calls.log'), JSON.stringify({ plugin: name, pid: process.pid, env, stdinText, stdin: JSON.parse(stdinText) }) + '\\n');
const behaviour = (JSON.parse(fs.readFileSync(path.join(dir, 'behaviour.json'), 'utf8'))[name] || {})[env.CNI_COMMAND] || {};
if (behaviour.stdout !== undefined) process.stdout.write(typeof behaviour.stdout === 'string' ? behaviour.stdout : JSON.stringify(behaviour.stdout));
if (behaviour.stderr !== undefined) process.stderr.write(behaviour.stderr);
process.exitCode = behaviour.exit || 0;
`;

// Never answers. A shell script that logs itself first with built-ins only (no fork), so it is logged within
// a few milliseconds even on a busy machine, long before the deadline; exec keeps the logged pid the one that
// must be killed.
const HANG = `#!/bin/sh
echo '{"plugin":"rec-hang","pid":'$$',"env":{},"stdinText":"","stdin":{}}' >> "\${0%/*}/calls.log"
cat > /dev/null
exec sleep 100000
`;
const HANG_LIST = Buffer.from('{"cniVersion":"1.0.0","name":"rec-net","plugins":[{"type":"rec-hang"}]}');

// Exits at once, leaving behind a process that holds its stdout open: the plugin is gone, its output never
// ends. The logged pid is that process's.
const ORPHAN = `#!/bin/sh
sleep 100000 &
echo '{"plugin":"rec-orphan","pid":'$!',"env":{},"stdinText":"","stdin":{}}' >> "\${0%/*}/calls.log"
exit 0
`;
const ORPHAN_LIST = Buffer.from('{"cniVersion":"1.0.0","name":"rec-net","plugins":[{"type":"rec-orphan"}]}');

let work: string;
let counter = 0;

interface Bin {
  readonly dir: string;
  readonly binDirs: readonly string[];
  calls(): Promise<Call[]>;
}

async function makeBin(behaviours: Behaviours, names: readonly string[] = ['rec-a', 'rec-b', 'rec-c']): Promise<Bin> {
  counter += 1;
  const root = join(work, `case-${counter}`);
  const empty = join(root, 'empty-bin');
  const dir = join(root, 'bin');
  await mkdir(empty, { recursive: true });
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    await writeFile(join(dir, name), RECORDER);
    await chmod(join(dir, name), 0o755);
  }
  await writeFile(join(dir, 'rec-hang'), HANG);
  await chmod(join(dir, 'rec-hang'), 0o755);
  await writeFile(join(dir, 'rec-orphan'), ORPHAN);
  await chmod(join(dir, 'rec-orphan'), 0o755);
  await writeFile(join(dir, 'behaviour.json'), JSON.stringify(behaviours));
  return {
    dir: root,
    // The plugins sit in the second directory: the search goes through the list in order.
    binDirs: [empty, dir],
    async calls() {
      const text = await readFile(join(dir, 'calls.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Call);
    },
  };
}

/** Whether a process exists; a plugin is reaped before its call fails, so a killed one is gone. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once a plugin has logged its whole call line, i.e. it is running past its log write. */
async function loggedCall(bin: Bin): Promise<void> {
  for await (const event of watch(bin.binDirs[1] ?? '')) {
    if (event.filename === 'calls.log' && (await bin.calls().catch(() => [])).length > 0) return;
  }
}

function runtime(bin: Bin, capabilityArgs: Record<string, unknown> = {}): RuntimeConf {
  return {
    containerID: 'c0ffee',
    netns: '/var/run/netns/recording',
    ifName: 'net1',
    args: [
      ['IgnoreUnknown', 'true'],
      ['K8S_POD_NAMESPACE', 'ns1'],
      ['K8S_POD_NAME', 'pod-1'],
    ],
    capabilityArgs,
    cacheDir: join(bin.dir, 'cache'),
  };
}

const R_A = { cniVersion: '1.0.0', interfaces: [{ name: 'net1', sandbox: '/var/run/netns/recording' }], ips: [{ interface: 0, address: '10.1.0.5/24' }] };
const R_B = {
  cniVersion: '1.0.0',
  interfaces: [{ name: 'net1', mac: '0a:00:00:00:00:01', sandbox: '/var/run/netns/recording' }],
  ips: [{ interface: 0, address: '10.1.0.5/24', gateway: '10.1.0.1' }],
};
const R_C = { ...R_B, dns: { nameservers: ['10.1.0.53'] } };

const LIST = Buffer.from(
  '{"cniVersion":"1.0.0","name":"rec-net","plugins":[{"type":"rec-a","name":"own-name","cniVersion":"0.4.0","big":12345678901234567890,"f":1.0},{"type":"rec-b"},{"type":"rec-c"}]}',
);
const THREE_OK: Behaviours = { 'rec-a': { ADD: { stdout: R_A } }, 'rec-b': { ADD: { stdout: R_B } }, 'rec-c': { ADD: { stdout: R_C } } };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'no error',
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sriovdra-cni-rec-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('ADD', () => {
  it('chains prevResult, sets the list name and version, passes the CNI environment and caches the final result', async () => {
    const bin = await makeBin(THREE_OK);
    const rt = runtime(bin);

    const result = await addNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    const calls = await bin.calls();
    expect(calls.map((call) => call.plugin)).toEqual(['rec-a', 'rec-b', 'rec-c']);
    expect(calls[0]?.stdin).not.toHaveProperty('prevResult');
    expect(calls[1]?.stdin['prevResult']).toEqual(R_A);
    expect(calls[2]?.stdin['prevResult']).toEqual(R_B);
    // The plugin's own name and cniVersion give way to the list's; every other key keeps its exact text.
    expect(calls[0]?.stdinText).toBe('{"type":"rec-a","name":"rec-net","cniVersion":"1.0.0","big":12345678901234567890,"f":1.0}');
    expect(calls[1]?.stdin).toMatchObject({ name: 'rec-net', cniVersion: '1.0.0' });
    expect(calls[0]?.env).toEqual({
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'c0ffee',
      CNI_NETNS: '/var/run/netns/recording',
      CNI_IFNAME: 'net1',
      CNI_ARGS: 'IgnoreUnknown=true;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod-1',
      CNI_PATH: `${bin.binDirs[0]}:${bin.binDirs[1]}`,
    });
    expect(result).toEqual(R_C);

    const cache = JSON.parse(await readFile(join(bin.dir, 'cache/results/rec-net-c0ffee-net1'), 'utf8')) as Record<string, unknown>;
    expect(cache).toEqual({
      kind: 'cniCacheV1',
      containerId: 'c0ffee',
      config: LIST.toString('base64'),
      ifName: 'net1',
      networkName: 'rec-net',
      netns: '/var/run/netns/recording',
      cniArgs: [
        ['IgnoreUnknown', 'true'],
        ['K8S_POD_NAMESPACE', 'ns1'],
        ['K8S_POD_NAME', 'pod-1'],
      ],
      result: R_C,
    });
  });

  it('gives each plugin in runtimeConfig exactly the capability arguments it declares', async () => {
    const bin = await makeBin(THREE_OK);
    const config = Buffer.from(
      JSON.stringify({
        cniVersion: '1.1.0',
        name: 'caps-net',
        plugins: [
          { type: 'rec-a', capabilities: { ips: true, mac: false, portMappings: true } },
          { type: 'rec-b' },
          { type: 'rec-c', capabilities: { bandwidth: true }, runtimeConfig: { own: 1 } },
        ],
      }),
    );
    const rt = runtime(bin, { ips: ['10.1.0.9/24'], mac: '0a:00:00:00:00:09', portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] });

    await addNetwork(config, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    const calls = await bin.calls();
    expect(calls[0]?.stdin['runtimeConfig']).toEqual({ ips: ['10.1.0.9/24'], portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] });
    expect(calls[1]?.stdin).not.toHaveProperty('runtimeConfig');
    // No declared capability has an argument: the plugin's own runtimeConfig is passed unchanged.
    expect(calls[2]?.stdin['runtimeConfig']).toEqual({ own: 1 });
  });

  it('stops at the first failing plugin, reports its CNI error and writes no cache', async () => {
    const bin = await makeBin({
      'rec-a': { ADD: { stdout: R_A } },
      'rec-b': { ADD: { stdout: { cniVersion: '1.0.0', code: 7, msg: 'invalid vlan', details: 'vlan 5000 is out of range' }, exit: 1 } },
    });
    const rt = runtime(bin);

    const error = await failure(addNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 }));

    expect(error).toBeInstanceOf(CniPluginError);
    expect(error).toMatchObject({
      cniCode: 7,
      msg: 'invalid vlan',
      details: 'vlan 5000 is out of range',
      pluginType: 'rec-b',
      network: 'rec-net',
      command: 'ADD',
    });
    expect((await bin.calls()).map((call) => call.plugin)).toEqual(['rec-a', 'rec-b']);
    expect(existsSync(join(bin.dir, 'cache/results/rec-net-c0ffee-net1'))).toBe(false);
  });

  it('reports a failure without a CNI error, with the plugin stderr', async () => {
    const bin = await makeBin({ 'rec-a': { ADD: { stderr: 'cannot open /dev/vfio', exit: 2 } } });
    const error = await failure(addNetwork(LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(CniInvocationError);
    expect(error).toMatchObject({ code: 'PluginFailedWithoutError', pluginType: 'rec-a', network: 'rec-net' });
    expect((error as Error).message).toContain('cannot open /dev/vfio');
  });

  it.each([
    ['output that is not JSON', 'IP 10.1.0.5 assigned'],
    ['no output at all', undefined],
    ['a result of an unsupported version', { cniVersion: '0.3.1', ips: [] }],
    ['a result with an invalid address', { cniVersion: '1.0.0', ips: [{ address: '10.1.0.5' }] }],
  ])('refuses a successful ADD with %s', async (_what, stdout) => {
    const bin = await makeBin({ 'rec-a': { ADD: stdout === undefined ? {} : { stdout } } });
    const error = await failure(addNetwork(LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(CniInvocationError);
    expect(error).toMatchObject({ code: 'InvalidPluginOutput', pluginType: 'rec-a' });
  });

  it('kills a plugin that never answers at the deadline', async () => {
    const bin = await makeBin({});
    const error = await failure(addNetwork(HANG_LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 1_000 }));
    expect(error).toBeInstanceOf(CniInvocationError);
    expect(error).toMatchObject({ code: 'PluginTimedOut', pluginType: 'rec-hang', network: 'rec-net' });
    const calls = await bin.calls();
    expect(calls.map((call) => call.plugin)).toEqual(['rec-hang']);
    expect(isRunning(calls[0]?.pid ?? 0)).toBe(false);
  });

  it('ends the call at the deadline when the plugin exited but left its output open, and kills what holds it', async () => {
    const bin = await makeBin({});
    const error = await failure(addNetwork(ORPHAN_LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 1_000 }));
    expect(error).toMatchObject({ code: 'PluginTimedOut', pluginType: 'rec-orphan', network: 'rec-net' });
    const calls = await bin.calls();
    expect(calls.map((call) => call.plugin)).toEqual(['rec-orphan']);
    // Not the plugin's child any more: killed with the plugin's process group, then reaped by init.
    await waitFor('the process holding the output gone', () => Promise.resolve(!isRunning(calls[0]?.pid ?? 0)), { timeoutMs: 5_000 });
  }, 15_000);

  it('kills the running plugin when the caller cancels', async () => {
    const bin = await makeBin({});
    const controller = new AbortController();
    const started = loggedCall(bin);
    const pending = failure(addNetwork(HANG_LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 60_000, signal: controller.signal }));
    await started;
    controller.abort(new Error('shutting down'));
    expect(await pending).toMatchObject({ code: 'PluginCancelled', pluginType: 'rec-hang' });
    expect(isRunning((await bin.calls())[0]?.pid ?? 0)).toBe(false);
  });

  it('names the bin directories searched for a missing plugin', async () => {
    const bin = await makeBin(THREE_OK);
    const config = Buffer.from('{"cniVersion":"1.0.0","name":"missing-net","plugins":[{"type":"rec-a"},{"type":"absent"}]}');
    const error = await failure(addNetwork(config, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(CniInvocationError);
    expect(error).toMatchObject({ code: 'PluginNotFound', pluginType: 'absent', network: 'missing-net' });
    expect((error as Error).message).toContain(`failed to find plugin "absent" in path [${bin.binDirs[0]} ${bin.binDirs[1]}]`);
  });

  it('refuses an interface name libcni refuses, before running any plugin', async () => {
    const bin = await makeBin(THREE_OK);
    const error = await failure(addNetwork(LIST, { ...runtime(bin), ifName: 'net/1' }, { binDirs: bin.binDirs, timeoutMs: 10_000 }));
    expect(error).toMatchObject({ code: 'InvalidRuntimeConf', network: 'rec-net' });
    expect(await bin.calls()).toEqual([]);
  });
});

describe('DEL and CHECK', () => {
  it('DEL runs the plugins in reverse order, each with the cached result as prevResult, then removes the cache', async () => {
    const bin = await makeBin(THREE_OK);
    const rt = runtime(bin);
    await addNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    await delNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    const deletes = (await bin.calls()).filter((call) => call.env['CNI_COMMAND'] === 'DEL');
    expect(deletes.map((call) => call.plugin)).toEqual(['rec-c', 'rec-b', 'rec-a']);
    for (const call of deletes) expect(call.stdin['prevResult']).toEqual(R_C);
    expect(existsSync(join(bin.dir, 'cache/results/rec-net-c0ffee-net1'))).toBe(false);
  });

  it('DEL stops at the first failing plugin and keeps the cache for the retry', async () => {
    const bin = await makeBin({ ...THREE_OK, 'rec-b': { ADD: { stdout: R_B }, DEL: { stdout: { code: 11, msg: 'try again' }, exit: 1 } } });
    const rt = runtime(bin);
    await addNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    const error = await failure(delNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 }));

    expect(error).toMatchObject({ cniCode: 11, msg: 'try again', pluginType: 'rec-b', command: 'DEL' });
    const deletes = (await bin.calls()).filter((call) => call.env['CNI_COMMAND'] === 'DEL');
    expect(deletes.map((call) => call.plugin)).toEqual(['rec-c', 'rec-b']);
    expect(existsSync(join(bin.dir, 'cache/results/rec-net-c0ffee-net1'))).toBe(true);
  });

  it('DEL without a cache entry runs every plugin without prevResult', async () => {
    const bin = await makeBin(THREE_OK);
    await delNetwork(LIST, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 10_000 });
    const calls = await bin.calls();
    expect(calls.map((call) => call.plugin)).toEqual(['rec-c', 'rec-b', 'rec-a']);
    for (const call of calls) expect(call.stdin).not.toHaveProperty('prevResult');
  });

  it('a corrupt cache entry fails DEL before any plugin runs and is kept', async () => {
    const bin = await makeBin(THREE_OK);
    const rt = runtime(bin);
    const path = join(bin.dir, 'cache/results/rec-net-c0ffee-net1');
    await mkdir(join(bin.dir, 'cache/results'), { recursive: true });
    await writeFile(path, '{"kind":"cniCacheV1","result":');

    const error = await failure(delNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 }));

    expect(error).toMatchObject({ code: 'CorruptResultCache', network: 'rec-net' });
    expect(await bin.calls()).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe('{"kind":"cniCacheV1","result":');
  });

  it('CHECK runs the plugins in order with the cached result, converted to the configuration version', async () => {
    const bin = await makeBin(THREE_OK);
    const rt = runtime(bin);
    await addNetwork(LIST, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });
    // The same network at 0.4.0 (changed while the container ran): prevResult comes in 0.4.0 form.
    const list040 = Buffer.from(LIST.toString('utf8').replace('"cniVersion":"1.0.0","name":"rec-net"', '"cniVersion":"0.4.0","name":"rec-net"'));

    await checkNetwork(list040, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    const checks = (await bin.calls()).filter((call) => call.env['CNI_COMMAND'] === 'CHECK');
    expect(checks.map((call) => call.plugin)).toEqual(['rec-a', 'rec-b', 'rec-c']);
    for (const call of checks) {
      expect(call.stdin['prevResult']).toEqual({
        cniVersion: '0.4.0',
        interfaces: [{ name: 'net1', mac: '0a:00:00:00:00:01', sandbox: '/var/run/netns/recording' }],
        ips: [{ version: '4', interface: 0, address: '10.1.0.5/24', gateway: '10.1.0.1' }],
        dns: { nameservers: ['10.1.0.53'] },
      });
    }
  });

  it('CHECK of a conflist with disableCheck runs nothing', async () => {
    const bin = await makeBin(THREE_OK);
    const config = Buffer.from('{"cniVersion":"1.0.0","name":"rec-net","disableCheck":"TRUE","plugins":[{"type":"rec-a"}]}');
    await checkNetwork(config, runtime(bin), { binDirs: bin.binDirs, timeoutMs: 10_000 });
    expect(await bin.calls()).toEqual([]);
  });
});

describe('a single-plugin configuration', () => {
  it('ADD runs the plugin with its own configuration and caches under its name; DEL gives it the cached result', async () => {
    const bin = await makeBin({ 'rec-a': { ADD: { stdout: { ips: [{ address: '10.2.0.7/16' }] } } } });
    const rt = runtime(bin);
    const config = Buffer.from('{"cniVersion":"1.1.0","name":"single","type":"rec-a","plugins":"ignored","mtu":9000}');

    const result = await addNetwork(config, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });
    await delNetwork(config, rt, { binDirs: bin.binDirs, timeoutMs: 10_000 });

    // A result without cniVersion is read as the configuration's.
    expect(result).toEqual({ cniVersion: '1.1.0', ips: [{ address: '10.2.0.7/16' }] });
    const calls = await bin.calls();
    expect(calls.map((call) => [call.plugin, call.env['CNI_COMMAND']])).toEqual([
      ['rec-a', 'ADD'],
      ['rec-a', 'DEL'],
    ]);
    expect(calls[0]?.stdinText).toBe('{"cniVersion":"1.1.0","name":"single","type":"rec-a","plugins":"ignored","mtu":9000}');
    expect(calls[1]?.stdin['prevResult']).toEqual({ cniVersion: '1.1.0', ips: [{ address: '10.2.0.7/16' }] });
  });
});
