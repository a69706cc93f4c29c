// NADs with k8s.v1.cni.cncf.io/resourceName, as upstream Multus v4.2.3 runs them: the device each one gets
// from the kubelet's PodResources API. The kubelet is its own v1 server code (tools/pod-resources-peer) on
// a unix socket; the CNI binary is the unchanged upstream multus-shim; the API server is real; the sriov
// plugin is the node fixture's recording stand-in. The same Pod goes through this daemon and through
// upstream multus-daemon v4.2.3 on the same socket, and each delegate's stdin is compared between them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { type PeerPod, type PodResourcesPeer, startPodResourcesPeer } from '../pod-resources/pod-resources-peer.ts';
import { type ShimRun, runShim } from '../server/multus-shim.ts';
import { type UpstreamDaemon, grantUpstreamMultus, startUpstreamDaemon, upstreamNetnsPath } from '../upstream/upstream-daemon.ts';

const NS = 'pod-resources';
const RAIL = 'intel.com/sriov_rail';
const CLAIM = 'nic-claim';
const RAIL_DEVICES = ['0000:3b:00.2', '0000:3b:00.3'];
const CDI_DEVICE = '0000:87:00.4';
const FILE_RESOURCE = 'intel.com/sriov_file';
const FILE_DEVICE = '0000:5e:00.1';

/** Each NAD and its configuration; `pairs` selects them in this order (interfaces net1 … net6). */
const NADS: readonly { readonly name: string; readonly resourceName?: string; readonly config: unknown }[] = [
  { name: 'sriov-a', resourceName: RAIL, config: { cniVersion: '1.0.0', name: 'sriov-a', type: 'sriov', capabilities: { deviceID: true }, vlan: 100 } },
  // A list: upstream puts the device on every plugin.
  { name: 'sriov-b', resourceName: RAIL, config: { cniVersion: '1.0.0', name: 'sriov-b', plugins: [{ type: 'sriov', capabilities: { deviceID: true } }] } },
  { name: 'dra-net', resourceName: CLAIM, config: { cniVersion: '1.0.0', name: 'dra-net', type: 'sriov', capabilities: { deviceID: true } } },
  // The rail's two devices are taken by then.
  { name: 'sriov-c', resourceName: RAIL, config: { cniVersion: '1.0.0', name: 'sriov-c', type: 'sriov', capabilities: { deviceID: true } } },
  { name: 'nodev-net', resourceName: 'intel.com/absent', config: { cniVersion: '1.0.0', name: 'nodev-net', type: 'sriov', capabilities: { deviceID: true } } },
  // No spec.config: the configuration is confDir's file of that name, and the device goes into it.
  { name: 'file-net', resourceName: FILE_RESOURCE, config: undefined },
];

let cp: ControlPlane;
let node: NodeFixture;
let peer: PodResourcesPeer;
let peerPods: PeerPod[];
let ours: { daemon: Daemon; socketDir: string };
let upstream: UpstreamDaemon;
let pairs: KubeObject;
let plain: KubeObject;

type Call = Awaited<ReturnType<NodeFixture['sriovCalls']>>[number];

/** What a delegate was run with, less prevResult (DEL's comes from the result cache, not the configuration). */
function delegateInput(call: Call): { command: string; ifName: string; stdin: Record<string, unknown> } {
  const stdin = Object.fromEntries(Object.entries(call.stdin).filter(([key]) => key !== 'prevResult'));
  return { command: call.command, ifName: call.ifName, stdin };
}

/** The sriov calls made since `before` of them were recorded. */
async function callsSince(before: number): Promise<Call[]> {
  return (await node.sriovCalls()).slice(before);
}

/** Name, deviceID and resourceName of each entry of a Multus delegate cache file. */
async function cachedDevices(file: string): Promise<string[]> {
  const entries = JSON.parse(await readFile(file, 'utf8')) as { Name: string; deviceID?: string; resourceName?: string }[];
  return entries.map((entry) => `${entry.Name} ${entry.deviceID ?? '-'} ${entry.resourceName ?? '-'}`);
}

function shim(side: 'ours' | 'upstream', command: string, containerID: string, netns: string, pod: KubeObject): Promise<ShimRun> {
  const env = shimEnv(node, command, containerID, netns, { namespace: NS, name: pod.metadata.name, uid: pod.metadata.uid });
  return runShim(env, shimConfig(side === 'ours' ? ours.socketDir : upstream.socketDir));
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  for (const nad of NADS) {
    await cp.adminClient.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: {
          name: nad.name,
          namespace: NS,
          ...(nad.resourceName === undefined ? {} : { annotations: { [annotations.resourceName]: nad.resourceName } }),
        },
        ...(nad.config === undefined ? {} : { spec: { config: JSON.stringify(nad.config) } }),
      },
      { namespace: NS },
    );
  }
  // After the primary network in name order, so upstream's auto mode still takes the primary as the cluster network.
  await writeFile(
    join(node.confDir, '90-file-net.conf'),
    JSON.stringify({ cniVersion: '1.0.0', name: 'file-net', type: 'sriov', capabilities: { deviceID: true } }),
  );
  pairs = await createPod(cp.adminClient, NS, 'pairs');
  pairs = await cp.adminClient.patch(
    resourceTypes.pod,
    { namespace: NS, name: 'pairs' },
    { metadata: { annotations: { [annotations.networks]: NADS.map((nad) => nad.name).join(',') } } },
    'application/merge-patch+json',
  );
  // An ordinary NAD without resourceName, for a Pod that needs no device.
  await cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: 'plain-net', namespace: NS },
      spec: { config: JSON.stringify({ cniVersion: '1.0.0', name: 'plain-net', type: 'sriov' }) },
    },
    { namespace: NS },
  );
  await createPod(cp.adminClient, NS, 'plain');
  plain = await cp.adminClient.patch(
    resourceTypes.pod,
    { namespace: NS, name: 'plain' },
    { metadata: { annotations: { [annotations.networks]: 'plain-net' } } },
    'application/merge-patch+json',
  );
  // What the kubelet reports: the rail's devices split over two containers, the claim's CDI device, and
  // another Pod's device of the same resource, which must not leak into this Pod's map.
  peerPods = [
    {
      name: 'elsewhere',
      namespace: 'other',
      uid: 'e0000000-0000-4000-8000-000000000001',
      containers: [{ name: 'app', devices: [{ resourceName: RAIL, deviceIds: ['0000:99:00.1'] }] }],
    },
    {
      name: 'pairs',
      namespace: NS,
      uid: pairs.metadata.uid,
      containers: [
        {
          name: 'app',
          devices: [{ resourceName: RAIL, deviceIds: [RAIL_DEVICES[0] ?? ''] }],
          dynamicResources: [
            {
              claimName: CLAIM,
              claimNamespace: NS,
              claimResources: [{ cdiDevices: [`k8s.sriov.example.com/vf=${CDI_DEVICE}`], driverName: 'sriov.example.com', poolName: NODE, deviceName: 'vf-4' }],
            },
          ],
        },
        {
          name: 'sidecar',
          devices: [
            { resourceName: RAIL, deviceIds: [RAIL_DEVICES[1] ?? ''] },
            { resourceName: FILE_RESOURCE, deviceIds: [FILE_DEVICE] },
          ],
        },
      ],
    },
  ];
  peer = await startPodResourcesPeer(node.root, peerPods);
  ours = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, config: { podResourcesSocket: peer.socket } });
  upstream = await startUpstreamDaemon({
    dir: join(node.root, 'upstream'),
    node,
    nodeName: NODE,
    apiServer: cp.server,
    caCert: cp.caCert,
    token: await grantUpstreamMultus(cp.adminClient),
    podResourcesDir: node.root,
  });
}, 180_000);

afterAll(async () => {
  await upstream.stop();
  await ours.daemon.stop();
  await peer.stop();
  await cp.stop();
  await removeNodeFixture(node);
}, 60_000);

describe('resourceName NADs with the kubelet’s PodResources, as upstream Multus v4.2.3', () => {
  const sandboxes: { ours?: ReturnType<typeof createSandbox>; upstream?: ReturnType<typeof createSandbox> } = {};
  let oursAdd: Call[] = [];

  afterAll(() => {
    sandboxes.ours?.remove();
    sandboxes.upstream?.remove();
  });

  it('hands two NADs of one resource its two devices in order, a claim its CDI device, and an exhausted or unknown resource none', async () => {
    sandboxes.ours = createSandbox();
    const before = (await node.sriovCalls()).length;
    const lists = (await peer.calls()).length;
    const add = await shim('ours', 'ADD', 'c-ours', sandboxes.ours.path, pairs);
    expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
    // One resource map per ADD, however many NADs need it.
    expect((await peer.calls()).slice(lists)).toEqual(['List']);
    oursAdd = await callsSince(before);
    expect(oursAdd.map((call) => `${call.command} ${call.ifName} ${String(call.stdin['deviceID'])} ${String(call.stdin['pciBusID'])}`)).toEqual([
      `ADD net1 ${RAIL_DEVICES[0]} ${RAIL_DEVICES[0]}`,
      `ADD net2 ${RAIL_DEVICES[1]} ${RAIL_DEVICES[1]}`,
      `ADD net3 ${CDI_DEVICE} ${CDI_DEVICE}`,
      'ADD net4 undefined undefined',
      'ADD net5 undefined undefined',
      `ADD net6 ${FILE_DEVICE} ${FILE_DEVICE}`,
    ]);
    // The device reaches the plugin as upstream's capability argument too, only where there is one.
    expect(oursAdd.map((call) => call.stdin['runtimeConfig'])).toEqual([
      { deviceID: RAIL_DEVICES[0] },
      { deviceID: RAIL_DEVICES[1] },
      { deviceID: CDI_DEVICE },
      undefined,
      undefined,
      { deviceID: FILE_DEVICE },
    ]);
    // The NAD's own bytes keep their order; the device's keys follow them (libcni adds runtimeConfig last).
    expect(Object.keys(oursAdd[0]?.stdin ?? {})).toEqual(['cniVersion', 'name', 'type', 'capabilities', 'vlan', 'deviceID', 'pciBusID', 'runtimeConfig']);
    expect(await cachedDevices(join(node.cniDir, 'c-ours'))).toEqual([
      'primary - -',
      `${NS}/sriov-a ${RAIL_DEVICES[0]} ${RAIL}`,
      `${NS}/sriov-b ${RAIL_DEVICES[1]} ${RAIL}`,
      `${NS}/dra-net ${CDI_DEVICE} ${CLAIM}`,
      `${NS}/sriov-c - -`,
      `${NS}/nodev-net - -`,
      `${NS}/file-net ${FILE_DEVICE} ${FILE_RESOURCE}`,
    ]);
  });

  it('gives every delegate the same stdin and caches the same devices as upstream multus-daemon on the same socket', async () => {
    sandboxes.upstream = createSandbox();
    const before = (await node.sriovCalls()).length;
    const lists = (await peer.calls()).length;
    const add = await shim('upstream', 'ADD', 'c-upstream', upstreamNetnsPath(sandboxes.upstream.name), pairs);
    expect({ code: add.code, stderr: add.stderr, log: add.code === 0 ? '' : upstream.logTail() }).toEqual({ code: 0, stderr: '', log: '' });
    expect((await peer.calls()).slice(lists)).toEqual(['List']);
    const upstreamAdd = await callsSince(before);
    expect(upstreamAdd.map(delegateInput)).toEqual(oursAdd.map(delegateInput));
    expect(await cachedDevices(join(upstream.cniDir, 'c-upstream'))).toEqual(await cachedDevices(join(node.cniDir, 'c-ours')));
  }, 60_000);

  it('asks the kubelet nothing for a Pod whose NADs carry no resourceName', async () => {
    const sandbox = createSandbox();
    try {
      const lists = (await peer.calls()).length;
      const add = await shim('ours', 'ADD', 'c-plain-up', sandbox.path, plain);
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect((await peer.calls()).slice(lists)).toEqual([]);
      await shim('ours', 'DEL', 'c-plain-up', sandbox.path, plain);
    } finally {
      sandbox.remove();
    }
  });

  it('DEL replays the cached bytes with the same devices, with the kubelet’s socket gone', async () => {
    await peer.stop();
    const before = (await node.sriovCalls()).length;
    const del = await shim('ours', 'DEL', 'c-ours', sandboxes.ours?.path ?? '', pairs);
    expect({ code: del.code, stderr: del.stderr }).toEqual({ code: 0, stderr: '' });
    const deletes = await callsSince(before);
    expect(deletes.map(delegateInput)).toEqual(
      oursAdd
        .map(delegateInput)
        .reverse()
        .map((input) => ({ ...input, command: 'DEL' })),
    );
    await shim('upstream', 'DEL', 'c-upstream', upstreamNetnsPath(sandboxes.upstream?.name ?? ''), pairs);
  }, 60_000);

  it('fails an ADD that needs a device when the socket is missing, as upstream does without its checkpoint file, and looks nothing up for a Pod that needs none', async () => {
    const sandbox = createSandbox();
    try {
      const before = (await node.sriovCalls()).length;
      const mine = await shim('ours', 'ADD', 'c-ours-missing', sandbox.path, pairs);
      expect(mine.code).not.toBe(0);
      expect(mine.stdout + mine.stderr).toContain('PodResourcesSocketMissing');
      const theirs = await shim('upstream', 'ADD', 'c-upstream-missing', upstreamNetnsPath(sandbox.name), pairs);
      expect(theirs.code).not.toBe(0);
      expect(await callsSince(before)).toEqual([]);

      const unaffected = await shim('ours', 'ADD', 'c-plain', sandbox.path, plain);
      expect({ code: unaffected.code, stderr: unaffected.stderr }).toEqual({ code: 0, stderr: '' });
      expect((await callsSince(before)).map((call) => `${call.command} ${call.ifName} ${String(call.stdin['deviceID'])}`)).toEqual(['ADD net1 undefined']);
      await shim('ours', 'DEL', 'c-plain', sandbox.path, plain);
    } finally {
      sandbox.remove();
    }
  }, 60_000);

  it('fails the ADD with PodResourcesListFailed when the socket is left by a kubelet that died, as upstream fails its List', async () => {
    peer = await startPodResourcesPeer(node.root, peerPods);
    await peer.kill();
    const sandbox = createSandbox();
    try {
      const mine = await shim('ours', 'ADD', 'c-ours-dead', sandbox.path, pairs);
      expect(mine.code).not.toBe(0);
      expect(mine.stdout + mine.stderr).toContain('PodResourcesListFailed');
      const theirs = await shim('upstream', 'ADD', 'c-upstream-dead', upstreamNetnsPath(sandbox.name), pairs);
      expect(theirs.code).not.toBe(0);
    } finally {
      sandbox.remove();
    }
  }, 60_000);
});
