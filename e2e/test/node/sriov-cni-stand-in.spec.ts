// The sriov stand-in driven as a CNI runtime drives it: the installed wrapper executed with the CNI_* environment
// and the configuration on stdin, against real network namespaces, real links playing the VFs of a fake sysfs
// tree, and the real host-local plugin as its IPAM delegate. Needs root (netns and link creation).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cniPlugins } from '@sriov-dra/k8s/testing';
import { z } from 'zod';
import { generateFakeSysfs } from '../../../tools/fake-sysfs/generate.ts';
import { installSriovStandIn } from '../../src/node/sriov-cni-install.ts';

/** Unique to this process, so a concurrent or crashed run elsewhere on the host never shares a link or netns. */
const TAG = `sv${process.pid}`;
const VF_COUNT = 6;
const NETWORK = 'sriov-stand-in-test';
const SUBNET_PREFIX = '192.0.2.';
const ROUTE = '198.51.100.0/24';

const resultSchema = z.object({
  cniVersion: z.string(),
  interfaces: z.array(z.object({ name: z.string(), mac: z.string(), sandbox: z.string() })),
  ips: z.array(z.object({ version: z.enum(['4', '6']).optional(), address: z.string(), gateway: z.string().optional(), interface: z.number() })),
  routes: z.array(z.object({ dst: z.string(), gw: z.string().optional() })).optional(),
});
const errorSchema = z.object({ cniVersion: z.string(), code: z.number(), msg: z.string(), details: z.string() });
const linksSchema = z.array(z.object({ ifname: z.string(), address: z.string(), flags: z.array(z.string()) }));
const addrsSchema = z.array(z.object({ addr_info: z.array(z.object({ local: z.string(), prefixlen: z.number() })) }));

interface Sandbox {
  readonly containerId: string;
  /** What the runtime passes as CNI_NETNS. */
  readonly netns: string;
  /** The name `ip -n` takes. */
  readonly name: string;
}

let root = '';
let plugin = '';
let cniPath = '';
let hostLocalDir = '';
let stateDir = '';
let vfs: readonly { readonly pciAddress: string; readonly netdev: string }[] = [];
const netnsNames: string[] = [];
const bindMounts: string[] = [];

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function onHost(link: string): boolean {
  return spawnSync('ip', ['link', 'show', 'dev', link], { stdio: 'ignore' }).status === 0;
}

function linksIn(sandbox: Sandbox): z.infer<typeof linksSchema> {
  return linksSchema.parse(JSON.parse(ip('-n', sandbox.name, '-j', 'link', 'show')));
}

function vf(index: number): { readonly pciAddress: string; readonly netdev: string } {
  const found = vfs[index];
  if (found === undefined) throw new Error(`the fake sysfs has no VF ${index}`);
  return found;
}

/** The link standing in for a VF netdev. Some VM kernels lack the dummy driver; ifb is likewise a bare link that dies with its netns. */
function addVfLink(name: string): void {
  if (onHost(name)) ip('link', 'del', name);
  try {
    ip('link', 'add', name, 'type', 'dummy');
  } catch {
    ip('link', 'add', name, 'type', 'ifb');
  }
}

/** A sandbox as a runtime pins it; `bindAt` mounts it at a path outside /var/run/netns as well, which `ip -n` cannot take. */
function newSandbox(suffix: string, bindAt?: string): Sandbox {
  const name = `${TAG}-${suffix}`;
  ip('netns', 'add', name);
  netnsNames.push(name);
  const pinned = `/var/run/netns/${name}`;
  if (bindAt === undefined) return { containerId: `${TAG}-${suffix}-container`, netns: pinned, name };
  fs.writeFileSync(bindAt, '');
  execFileSync('mount', ['--bind', pinned, bindAt]);
  bindMounts.push(bindAt);
  return { containerId: `${TAG}-${suffix}-container`, netns: bindAt, name };
}

function netConf(cniVersion: string, deviceID: string, routes: readonly { readonly dst: string; readonly gw?: string }[] = [{ dst: ROUTE }]): string {
  return JSON.stringify({
    cniVersion,
    name: NETWORK,
    type: 'sriov',
    deviceID,
    ipam: { type: 'host-local', dataDir: hostLocalDir, ranges: [[{ subnet: `${SUBNET_PREFIX}0/24` }]], routes },
  });
}

interface Invocation {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cni(command: 'ADD' | 'DEL' | 'CHECK', sandbox: Sandbox, conf: string): Invocation {
  const run = spawnSync(plugin, [], {
    env: {
      CNI_COMMAND: command,
      CNI_CONTAINERID: sandbox.containerId,
      CNI_NETNS: sandbox.netns,
      CNI_IFNAME: 'net1',
      CNI_PATH: cniPath,
      CNI_ARGS: `IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${sandbox.name}`,
      PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    },
    input: conf,
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function added(sandbox: Sandbox, conf: string): z.infer<typeof resultSchema> {
  const run = cni('ADD', sandbox, conf);
  expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toMatchObject({ status: 0 });
  return resultSchema.parse(JSON.parse(run.stdout));
}

function failure(run: Invocation): z.infer<typeof errorSchema> {
  expect(run.status).toBe(1);
  return errorSchema.parse(JSON.parse(run.stdout));
}

function lease(address: string): string {
  return path.join(hostLocalDir, NETWORK, address.split('/')[0] ?? address);
}

function leases(): string[] {
  const dir = path.join(hostLocalDir, NETWORK);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((entry) => entry.startsWith(SUBNET_PREFIX)) : [];
}

function stateFiles(): string[] {
  return fs.existsSync(stateDir) ? fs.readdirSync(stateDir) : [];
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-stand-in-'));
  // A space and a quote in the paths the wrapper bakes in: it must quote them for /bin/sh.
  const nodeDir = path.join(root, "node's root");
  const sysfsRoot = path.join(nodeDir, 'sys');
  hostLocalDir = path.join(root, 'host-local');
  stateDir = path.join(nodeDir, 'state');
  const generated = generateFakeSysfs(sysfsRoot, {
    pfs: [{ model: 'connectx-6', pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, netdev: TAG, vfs: Array.from({ length: VF_COUNT }, () => ({})) }],
  });
  vfs = (generated.pfs[0]?.vfs ?? []).flatMap((fn) => (fn.netdev === undefined ? [] : [{ pciAddress: fn.pciAddress, netdev: fn.netdev }]));
  expect(vfs).toHaveLength(VF_COUNT);
  for (const { netdev } of vfs) addVfLink(netdev);
  plugin = installSriovStandIn(path.join(nodeDir, 'bin'), { sysfsRoot, stateDir });
  cniPath = [path.dirname(plugin), cniPlugins().binDir].join(':');
});

afterAll(() => {
  for (const mount of bindMounts) spawnSync('umount', [mount], { stdio: 'ignore' });
  // Deleting a netns destroys the links still in it; those back on the host are deleted by name.
  for (const name of netnsNames) spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  for (const { netdev } of vfs) if (onHost(netdev)) ip('link', 'del', netdev);
  if (root !== '') fs.rmSync(root, { recursive: true, force: true });
});

describe('the sriov CNI stand-in', () => {
  it('ADD moves the VF into the sandbox as CNI_IFNAME, up, with its host-local address and route, and names it in a 1.0.0 result', () => {
    const sandbox = newSandbox('add');
    const { pciAddress, netdev } = vf(0);

    // The second route is the prefix route adding the address already made: sriov-cni leaves it be.
    const result = added(sandbox, netConf('1.0.0', pciAddress, [{ dst: ROUTE }, { dst: `${SUBNET_PREFIX}0/24` }]));

    const net1 = linksIn(sandbox).find((link) => link.ifname === 'net1');
    expect(net1?.flags).toContain('UP');
    expect(result.cniVersion).toBe('1.0.0');
    expect(result.interfaces).toEqual([{ name: 'net1', mac: net1?.address, sandbox: sandbox.netns }]);
    expect(result.ips).toEqual([{ address: expect.stringMatching(/^192\.0\.2\.\d+\/24$/), gateway: '192.0.2.1', interface: 0 }]);
    const address = result.ips[0]?.address ?? '';
    const configured = addrsSchema.parse(JSON.parse(ip('-n', sandbox.name, '-j', '-4', 'addr', 'show', 'dev', 'net1')));
    expect(configured.flatMap((link) => link.addr_info.map((info) => `${info.local}/${info.prefixlen}`))).toEqual([address]);
    expect(ip('-n', sandbox.name, 'route', 'show', ROUTE)).toContain('via 192.0.2.1 dev net1');
    expect(onHost(netdev)).toBe(false);
    expect(fs.existsSync(lease(address))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(stateDir, `${sandbox.containerId}-net1`), 'utf8'))).toMatchObject({ hostIfName: netdev });
  });

  it('DEL renames the VF back, returns it to the host and releases its lease; CHECK follows it; a second DEL succeeds', () => {
    const sandbox = newSandbox('del');
    const { pciAddress, netdev } = vf(1);
    const conf = netConf('1.0.0', pciAddress);
    const address = added(sandbox, conf).ips[0]?.address ?? '';
    expect(cni('CHECK', sandbox, conf).status).toBe(0);

    const del = cni('DEL', sandbox, conf);

    expect({ status: del.status, stdout: del.stdout }).toEqual({ status: 0, stdout: '' });
    expect(onHost(netdev)).toBe(true);
    expect(linksIn(sandbox).map((link) => link.ifname)).toEqual(['lo']);
    expect(fs.existsSync(lease(address))).toBe(false);
    expect(stateFiles()).not.toContain(`${sandbox.containerId}-net1`);
    expect(failure(cni('CHECK', sandbox, conf)).msg).toContain('net1');
    const again = cni('DEL', sandbox, conf);
    expect({ status: again.status, stdout: again.stdout }).toEqual({ status: 0, stdout: '' });
    expect(onHost(netdev)).toBe(true);
  });

  it('DEL after the sandbox netns was deleted still releases the lease', () => {
    const sandbox = newSandbox('gone');
    const { pciAddress } = vf(2);
    const conf = netConf('1.0.0', pciAddress);
    const address = added(sandbox, conf).ips[0]?.address ?? '';
    ip('netns', 'del', sandbox.name);

    const del = cni('DEL', sandbox, conf);

    expect({ status: del.status, stdout: del.stdout }).toEqual({ status: 0, stdout: '' });
    expect(fs.existsSync(lease(address))).toBe(false);
    expect(stateFiles()).not.toContain(`${sandbox.containerId}-net1`);
  });

  it('ADD with a deviceID the node does not have fails with code 7 and moves nothing', () => {
    const sandbox = newSandbox('unknown');
    const leasesBefore = leases();
    const hostLinksBefore = vfs.filter((fn) => onHost(fn.netdev));

    const error = failure(cni('ADD', sandbox, netConf('1.0.0', '0000:3b:1f.7')));

    expect(error).toMatchObject({ cniVersion: '1.0.0', code: 7, msg: expect.stringContaining('0000:3b:1f.7') });
    expect(linksIn(sandbox).map((link) => link.ifname)).toEqual(['lo']);
    expect(vfs.filter((fn) => onHost(fn.netdev))).toEqual(hostLinksBefore);
    expect(leases()).toEqual(leasesBefore);
    expect(stateFiles()).not.toContain(`${sandbox.containerId}-net1`);
  });

  it('a failure after the move (a route through an unreachable gateway) returns the VF to the host under its name and releases the lease', () => {
    const sandbox = newSandbox('undo');
    const { pciAddress, netdev } = vf(3);
    const leasesBefore = leases();

    const error = failure(cni('ADD', sandbox, netConf('1.0.0', pciAddress, [{ dst: ROUTE, gw: '203.0.113.1' }])));

    expect(error).toMatchObject({ code: 999, msg: expect.stringContaining(ROUTE) });
    expect(onHost(netdev)).toBe(true);
    expect(linksIn(sandbox).map((link) => link.ifname)).toEqual(['lo']);
    expect(leases()).toEqual(leasesBefore);
    expect(stateFiles()).not.toContain(`${sandbox.containerId}-net1`);
  });

  it('answers a 0.4.0 configuration in 0.4.0, each address tagged with its family, for a netns bind-mounted outside /var/run/netns', () => {
    const sandbox = newSandbox('v040', path.join(root, 'netns-v040'));
    const { pciAddress, netdev } = vf(4);
    const conf = netConf('0.4.0', pciAddress);

    const result = added(sandbox, conf);

    expect(result.cniVersion).toBe('0.4.0');
    expect(result.interfaces).toEqual([{ name: 'net1', mac: expect.any(String), sandbox: sandbox.netns }]);
    expect(result.ips).toEqual([{ version: '4', address: expect.stringMatching(/^192\.0\.2\.\d+\/24$/), gateway: '192.0.2.1', interface: 0 }]);
    expect(onHost(netdev)).toBe(false);
    expect(cni('DEL', sandbox, conf).status).toBe(0);
    expect(onHost(netdev)).toBe(true);
  });

  it('VERSION names the versions sriov-cni speaks', () => {
    const run = spawnSync(plugin, [], { env: { CNI_COMMAND: 'VERSION' }, input: '{"cniVersion":"1.1.0"}', encoding: 'utf8' });

    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ cniVersion: '1.1.0', supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] });
  });
});
