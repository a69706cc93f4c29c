// The reference CNI plugins (bridge, host-local, static, tuning) run against a real network namespace: the
// interface, its address and MTU are read back with `ip`, host-local's lease from its data directory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { addNetwork, delNetwork } from '../../src/cni/invoke.ts';
import { cacheFilePath } from '../../src/cni/result-cache.ts';
import type { RuntimeConf } from '../../src/cni/runtime-conf.ts';
import { CniPluginError } from '../../src/cni/cni-error.ts';

const BIN_DIRS = [join(homedir(), '.cache/sriov-dra/cni/bin')];
const OPTIONS = { binDirs: BIN_DIRS, timeoutMs: 30_000 };
const namespaces: string[] = [];
// One host bridge for the whole file; a per-process name keeps parallel workers apart.
const BRIDGE = `sdbr${process.pid % 1_000_000}`;
let work: string;

function newNamespace(): string {
  const name = `sriovdra-cni-${process.pid}-${namespaces.length + 1}`;
  execFileSync('ip', ['netns', 'add', name]);
  namespaces.push(name);
  return name;
}

function addresses(namespace: string, ifName: string): string[] {
  const out = JSON.parse(execFileSync('ip', ['-j', '-4', '-n', namespace, 'addr', 'show', 'dev', ifName], { encoding: 'utf8' })) as {
    addr_info: { local: string; prefixlen: number }[];
  }[];
  return out.flatMap((link) => link.addr_info.map((info) => `${info.local}/${info.prefixlen}`));
}

function linkMtu(namespace: string, ifName: string): number {
  const out = JSON.parse(execFileSync('ip', ['-j', '-n', namespace, 'link', 'show', 'dev', ifName], { encoding: 'utf8' })) as { mtu: number }[];
  return out[0]?.mtu ?? -1;
}

function linkExists(namespace: string, ifName: string): boolean {
  const out = JSON.parse(execFileSync('ip', ['-j', '-n', namespace, 'link', 'show'], { encoding: 'utf8' })) as { ifname: string }[];
  return out.some((link) => link.ifname === ifName);
}

function runtime(namespace: string, containerID: string, ifName: string, capabilityArgs: Record<string, unknown> = {}): RuntimeConf {
  return {
    containerID,
    netns: `/var/run/netns/${namespace}`,
    ifName,
    args: [
      ['IgnoreUnknown', 'true'],
      ['K8S_POD_NAMESPACE', 'ns1'],
      ['K8S_POD_NAME', 'pod1'],
    ],
    capabilityArgs,
    cacheDir: join(work, 'cache'),
  };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sriovdra-cni-real-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  for (const namespace of namespaces) execFileSync('ip', ['netns', 'del', namespace]);
  // The bridge plugin creates it on the first ADD that gets that far.
  if (existsSync(`/sys/class/net/${BRIDGE}`)) execFileSync('ip', ['link', 'del', BRIDGE]);
});

describe('a conflist bridge + host-local + tuning', () => {
  it('ADD creates the interface with the allocated address and the tuned MTU; DEL removes it, the lease and the cache entry', async () => {
    const namespace = newNamespace();
    const dataDir = join(work, 'host-local');
    const config = Buffer.from(
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'real-list',
        plugins: [
          {
            type: 'bridge',
            bridge: BRIDGE,
            ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.77.0.0/24', rangeStart: '10.77.0.10', rangeEnd: '10.77.0.20' }]] },
          },
          { type: 'tuning', mtu: 1400 },
        ],
      }),
    );
    const rt = runtime(namespace, 'cid-real-1', 'net1');

    const result = await addNetwork(config, rt, OPTIONS);

    expect(addresses(namespace, 'net1')).toEqual(['10.77.0.10/24']);
    // tuning finds the interface only through prevResult; the MTU proves the chain reached it.
    expect(linkMtu(namespace, 'net1')).toBe(1400);
    expect(result).toMatchObject({ cniVersion: '1.0.0', ips: [{ address: '10.77.0.10/24' }] });
    expect(await readdir(join(dataDir, 'real-list'))).toContain('10.77.0.10');
    expect(existsSync(cacheFilePath('real-list', rt))).toBe(true);

    await delNetwork(config, rt, OPTIONS);

    expect(linkExists(namespace, 'net1')).toBe(false);
    expect(await readdir(join(dataDir, 'real-list'))).not.toContain('10.77.0.10');
    expect(existsSync(cacheFilePath('real-list', rt))).toBe(false);
  });
});

describe('static IPAM and the ips capability', () => {
  const staticConfig = (declared: boolean): Buffer =>
    Buffer.from(
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'static-net',
        type: 'bridge',
        bridge: BRIDGE,
        ...(declared ? { capabilities: { ips: true } } : {}),
        ipam: { type: 'static' },
      }),
    );

  it('assigns the requested address when the plugin declares the capability', async () => {
    const namespace = newNamespace();
    const rt = runtime(namespace, 'cid-static-1', 'net2', { ips: ['10.78.0.5/24'], mac: '0a:58:0a:4e:00:05' });
    await addNetwork(staticConfig(true), rt, OPTIONS);
    expect(addresses(namespace, 'net2')).toEqual(['10.78.0.5/24']);
    await delNetwork(staticConfig(true), rt, OPTIONS);
  });

  it('does not pass the address when the plugin does not declare the capability', async () => {
    const namespace = newNamespace();
    const rt = runtime(namespace, 'cid-static-2', 'net3', { ips: ['10.78.0.6/24'] });
    const outcome = await addNetwork(staticConfig(false), rt, OPTIONS).then(
      () => 'added',
      (error: unknown) => error,
    );
    // static refuses a configuration without addresses; whatever it did, the address is not there.
    expect(outcome).toBeInstanceOf(CniPluginError);
    expect(linkExists(namespace, 'net3') ? addresses(namespace, 'net3') : []).not.toContain('10.78.0.6/24');
  });
});
