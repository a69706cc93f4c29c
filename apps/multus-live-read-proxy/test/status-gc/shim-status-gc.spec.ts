// STATUS and GC as a container runtime sends them: the unchanged upstream multus-shim (v4.2.3, a 1.1.0
// configuration) posts them to our daemon, which runs the real bridge and host-local plugins and a
// recording plugin of the cluster network. The cluster network is named per request in the shim's
// configuration, so one daemon serves every case.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { type ControlPlane, cacheRoot, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'status-gc';
const BRIDGE = `mlsg${String(process.pid % 1_000_000)}`;

/** Logs each call; a chained ADD passes its prevResult on; STATUS fails when the configuration says so. */
const RECORDER = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const stdin = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(path.join(path.dirname(process.argv[1]), 'rec-calls.log'), JSON.stringify({ command: process.env.CNI_COMMAND, containerID: process.env.CNI_CONTAINERID, stdin }) + '\\n');
if (process.env.CNI_COMMAND === 'ADD') process.stdout.write(JSON.stringify({ ...stdin.prevResult, cniVersion: stdin.cniVersion }));
if (process.env.CNI_COMMAND === 'STATUS' && stdin.failStatus !== undefined) {
  process.stdout.write(JSON.stringify({ cniVersion: stdin.cniVersion, code: 50, msg: stdin.failStatus }));
  process.exitCode = 1;
}
`;

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;
let recBin: string;
let gcLeases: string;

function bridge(ipam: Record<string, unknown>): Record<string, unknown> {
  return { type: 'bridge', bridge: BRIDGE, ipam };
}

async function network(name: string, plugins: Record<string, unknown>[]): Promise<void> {
  await writeFile(join(node.confDir, `20-${name}.conflist`), JSON.stringify({ cniVersion: '1.1.0', name, plugins }));
}

function shimEnv(command: string, extra: Record<string, string> = {}): Record<string, string> {
  return { CNI_COMMAND: command, CNI_PATH: recBin, PATH: process.env['PATH'] ?? '', ...extra };
}

function attachmentEnv(command: string, containerID: string, pod: { name: string; uid: string }): Record<string, string> {
  return shimEnv(command, {
    CNI_CONTAINERID: containerID,
    // host-local alone needs no namespace; the path is only passed along.
    CNI_NETNS: `/var/run/netns/${containerID}`,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${NS};K8S_POD_NAME=${pod.name};K8S_POD_INFRA_CONTAINER_ID=${containerID};K8S_POD_UID=${pod.uid}`,
  });
}

function shimConfig(clusterNetwork: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ cniVersion: '1.1.0', name: 'multus-cni-network', type: 'multus-shim', daemonSocketDir: socketDir, clusterNetwork, ...extra });
}

async function recCalls(): Promise<{ command: string; containerID: string; stdin: Record<string, unknown> }[]> {
  const text = await readFile(join(recBin, 'rec-calls.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { command: string; containerID: string; stdin: Record<string, unknown> });
}

/** host-local's leases of gc-net: each address file holds the container ID and the interface name. */
async function leases(): Promise<string[]> {
  const directory = join(gcLeases, 'gc-net');
  const names = (await readdir(directory)).filter((name) => /^\d+\.\d+\.\d+\.\d+$/.test(name));
  const owners = await Promise.all(names.map(async (name) => (await readFile(join(directory, name), 'utf8')).split(/\r?\n/)[0] ?? ''));
  return owners.sort();
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  socketDir = join(node.root, 'run-multus');
  recBin = join(node.root, 'rec-bin');
  gcLeases = join(node.root, 'gc-leases');
  await mkdir(socketDir, { recursive: true });
  await mkdir(recBin, { recursive: true });
  await writeFile(join(recBin, 'rec'), RECORDER);
  await chmod(join(recBin, 'rec'), 0o755);
  const hostLocal = { type: 'host-local', dataDir: join(node.root, 'status-leases'), ranges: [[{ subnet: '10.244.8.0/24' }]] };
  await network('status-net', [bridge(hostLocal), { type: 'rec', role: 'status' }]);
  await network('failing-net', [bridge(hostLocal), { type: 'rec', failStatus: 'uplink is down' }]);
  await network('broken-ipam-net', [bridge({ type: 'no-such-ipam' }), { type: 'rec' }]);
  // bridge v1.10.0 does not pass GC on to its IPAM, so host-local is a plugin of the list itself here.
  await network('gc-net', [{ type: 'host-local', ipam: { type: 'host-local', dataDir: gcLeases, ranges: [[{ subnet: '10.244.9.0/24' }]] } }, { type: 'rec' }]);
  const config = join(node.root, 'daemon-config.json');
  // No clusterNetwork and no readinessindicatorfile here: each request's shim configuration names its own.
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.1.0',
      chrootDir: '',
      socketDir,
      binDir: join(cacheRoot(), 'cni', 'bin'),
      confDir: node.confDir,
      cniDir: node.cniDir,
      multusNamespace: 'kube-system',
      liveNetworkConfigOnAdd: true,
    }),
  );
  daemon = await startDaemon(
    { config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger: pino({ level: 'silent' }), resultCacheDir: node.resultCacheDir },
  );
}, 120_000);

afterAll(async () => {
  await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
  try {
    execFileSync('ip', ['link', 'del', BRIDGE], { stdio: 'ignore' });
  } catch {
    // STATUS and GC create no bridge.
  }
});

describe('STATUS through the upstream multus-shim', () => {
  it('runs STATUS on every plugin of the cluster network: the real bridge (which asks host-local) and the recorder', async () => {
    const before = (await recCalls()).length;
    const status = await runShim(shimEnv('STATUS'), shimConfig('status-net'));
    expect({ code: status.code, stdout: status.stdout }).toEqual({ code: 0, stdout: '' });
    expect((await recCalls()).slice(before)).toEqual([
      { command: 'STATUS', containerID: '', stdin: { type: 'rec', role: 'status', name: 'status-net', cniVersion: '1.1.0' } },
    ]);
  });

  it('fails with the real bridge’s own STATUS error, before the recorder is asked', async () => {
    const before = (await recCalls()).length;
    const status = await runShim(shimEnv('STATUS'), shimConfig('broken-ipam-net'));
    expect(status.code).not.toBe(0);
    expect(status.stdout).toContain('failed to find plugin \\"no-such-ipam\\"');
    expect((await recCalls()).slice(before)).toEqual([]);
  });

  it('fails with a plugin’s STATUS message', async () => {
    const status = await runShim(shimEnv('STATUS'), shimConfig('failing-net'));
    expect(status.code).not.toBe(0);
    expect(status.stdout).toContain('CNI error 50: uplink is down');
  });

  it('fails while the readiness indicator file is missing, without asking any plugin, and passes once it exists', async () => {
    const indicator = join(node.root, 'cluster-network-ready');
    const before = (await recCalls()).length;
    const missing = await runShim(shimEnv('STATUS'), shimConfig('status-net', { readinessindicatorfile: indicator }));
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toContain(`ReadinessIndicatorMissing: the readiness indicator file ${indicator} does not exist`);
    expect((await recCalls()).slice(before)).toEqual([]);

    await writeFile(indicator, '');
    const ready = await runShim(shimEnv('STATUS'), shimConfig('status-net', { readinessindicatorfile: indicator }));
    expect(ready.code).toBe(0);
    expect((await recCalls()).slice(before).map((call) => call.command)).toEqual(['STATUS']);
  });
});

describe('GC through the upstream multus-shim', () => {
  it('passes exactly the attachments still in the result cache as valid; host-local releases every other lease', async () => {
    const keep = await createPod(cp.adminClient, NS, 'keep');
    const gone = await createPod(cp.adminClient, NS, 'gone');
    for (const [containerID, pod] of [
      ['c-keep', keep],
      ['c-gone', gone],
    ] as const) {
      const add = await runShim(attachmentEnv('ADD', containerID, { name: pod.metadata.name, uid: pod.metadata.uid }), shimConfig('gc-net'));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
    }
    const del = await runShim(attachmentEnv('DEL', 'c-gone', { name: 'gone', uid: gone.metadata.uid }), shimConfig('gc-net'));
    expect(del.code).toBe(0);
    // A lease of a container this daemon never added and no runtime still knows: host-local run directly.
    execFileSync(join(cacheRoot(), 'cni', 'bin', 'host-local'), {
      input: JSON.stringify({ cniVersion: '1.1.0', name: 'gc-net', ipam: { type: 'host-local', dataDir: gcLeases, ranges: [[{ subnet: '10.244.9.0/24' }]] } }),
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: 'c-orphan',
        CNI_NETNS: '/var/run/netns/c-orphan',
        CNI_IFNAME: 'eth0',
        CNI_PATH: join(cacheRoot(), 'cni', 'bin'),
      },
    });
    expect(await leases()).toEqual(['c-keep', 'c-orphan']);

    const before = (await recCalls()).length;
    // The runtime's list names its Multus attachments (c-keep stays; an attachment it omits would be torn down
    // first); the cluster network's plugins get Multus's result cache alone, so c-orphan's lease goes even
    // though the runtime named it.
    const runtimeValid = [
      { containerID: 'c-keep', ifname: 'eth0' },
      { containerID: 'c-orphan', ifname: 'eth0' },
    ];
    const gc = await runShim(shimEnv('GC'), shimConfig('gc-net', { 'cni.dev/valid-attachments': runtimeValid }));
    expect({ code: gc.code, stdout: gc.stdout }).toEqual({ code: 0, stdout: '' });
    const valid = [{ containerID: 'c-keep', ifname: 'eth0' }];
    expect((await recCalls()).slice(before)).toEqual([
      {
        command: 'GC',
        containerID: '',
        stdin: { type: 'rec', 'cni.dev/valid-attachments': valid, 'cni.dev/attachments': valid, name: 'gc-net', cniVersion: '1.1.0' },
      },
    ]);
    expect(await leases()).toEqual(['c-keep']);
  });
});
