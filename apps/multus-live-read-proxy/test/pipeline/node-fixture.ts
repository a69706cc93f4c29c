// What the pipeline tests share: a node with real CNI plugins, a primary network in confDir, a recording
// stand-in for sriov-cni, network namespaces as sandboxes, and driver-shaped shadows on a real API server.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BindingAnnotationV1, annotations, serializeRegistry, shadowNameFor } from '@sriov-dra/contract';
import { buildShadowNad, renderShadowConfig } from '@sriov-dra/cni-render';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import type { CniRequest } from '../../src/server/cni-request.ts';

export const NODE = 'worker-a';
export const NODE_UID = '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40';
/** The primary network's host bridge, one per test process; removeNodeFixture deletes it. */
export const PRIMARY_BRIDGE = `mlrp${String(process.pid % 1_000_000)}`;

/** sriov-cni's place in the chain: records CNI_* and stdin, answers with the interface it was asked for. */
const SRIOV_STAND_IN = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const stdin = fs.readFileSync(0, 'utf8');
fs.appendFileSync(path.join(path.dirname(process.argv[1]), 'sriov-calls.log'), JSON.stringify({ command: process.env.CNI_COMMAND, ifName: process.env.CNI_IFNAME, args: process.env.CNI_ARGS, stdin: JSON.parse(stdin) }) + '\\n');
if (process.env.CNI_COMMAND === 'ADD') {
  const conf = JSON.parse(stdin);
  process.stdout.write(JSON.stringify({ cniVersion: conf.cniVersion, interfaces: [{ name: process.env.CNI_IFNAME, sandbox: process.env.CNI_NETNS }], ips: [{ address: '192.0.2.10/24', interface: 0 }] }));
}
`;

export interface NodeFixture {
  readonly root: string;
  readonly binDirs: readonly string[];
  readonly confDir: string;
  readonly cniDir: string;
  readonly resultCacheDir: string;
  readonly hostLocalDir: string;
  sriovCalls(): Promise<{ command: string; ifName: string; args: string; stdin: Record<string, unknown> }[]>;
}

export async function createNodeFixture(): Promise<NodeFixture> {
  const root = await mkdtemp(join(tmpdir(), 'mlrp-node-'));
  const standIns = join(root, 'bin');
  const confDir = join(root, 'net.d');
  const hostLocalDir = join(root, 'host-local');
  await mkdir(standIns, { recursive: true });
  await mkdir(confDir, { recursive: true });
  await writeFile(join(standIns, 'sriov'), SRIOV_STAND_IN);
  await chmod(join(standIns, 'sriov'), 0o755);
  // The primary network: a veth on a host bridge of this process, with a host-local address, as a file in
  // confDir named "primary".
  await writeFile(
    join(confDir, '10-primary.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'primary',
      plugins: [{ type: 'bridge', bridge: PRIMARY_BRIDGE, ipam: { type: 'host-local', dataDir: hostLocalDir, ranges: [[{ subnet: '10.244.7.0/24' }]] } }],
    }),
  );
  return {
    root,
    binDirs: [join(cacheRoot(), 'cni', 'bin'), standIns],
    confDir,
    cniDir: join(root, 'multus-cache'),
    resultCacheDir: join(root, 'cni-cache'),
    hostLocalDir,
    async sriovCalls() {
      const text = await readFile(join(standIns, 'sriov-calls.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { command: string; ifName: string; args: string; stdin: Record<string, unknown> });
    },
  };
}

/** Deletes the fixture's files and the host bridge its primary network created. */
export async function removeNodeFixture(fixture: NodeFixture): Promise<void> {
  try {
    execFileSync('ip', ['link', 'del', PRIMARY_BRIDGE], { stdio: 'ignore' });
  } catch {
    // No ADD ran, so the bridge was never created.
  }
  await rm(fixture.root, { recursive: true, force: true });
}

let sandboxes = 0;

/** A network namespace standing in for a Pod sandbox; `links` lists its interfaces. */
export function createSandbox(): { name: string; path: string; links(): string[]; remove(): void } {
  sandboxes += 1;
  const name = `mlrp-${String(process.pid)}-${String(sandboxes)}`;
  execFileSync('ip', ['netns', 'add', name]);
  return {
    name,
    path: `/var/run/netns/${name}`,
    links: () =>
      (JSON.parse(execFileSync('ip', ['-n', name, '-j', '-4', 'addr', 'show'], { encoding: 'utf8' })) as { ifname: string; addr_info: { local: string }[] }[])
        .filter((link) => link.ifname !== 'lo')
        .map((link) => `${link.ifname} ${link.addr_info.map((info) => info.local).join(' ')}`.trim())
        .sort(),
    remove: () => {
      execFileSync('ip', ['netns', 'del', name]);
    },
  };
}

export function cniRequest(
  command: CniRequest['command'],
  containerID: string,
  netns: string,
  pod: { namespace: string; name: string; uid?: string },
): CniRequest {
  const args: [string, string][] = [
    ['IgnoreUnknown', '1'],
    ['K8S_POD_NAMESPACE', pod.namespace],
    ['K8S_POD_NAME', pod.name],
    ['K8S_POD_INFRA_CONTAINER_ID', containerID],
    ...(pod.uid === undefined ? [] : ([['K8S_POD_UID', pod.uid]] as [string, string][])),
  ];
  return {
    command,
    containerID,
    netns,
    ifName: 'eth0',
    args,
    path: '/opt/cni/bin',
    config: Buffer.from('{"cniVersion":"1.0.0","name":"multus-cni-network","type":"multus-shim"}'),
    env: {},
  };
}

export async function createPod(client: KubeClient, namespace: string, name: string): Promise<KubeObject> {
  return client.create(
    resourceTypes.pod,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { nodeName: NODE, containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } },
    { namespace },
  );
}

/** The rail's source configuration: sriov with host-local IPAM on the rail subnet. */
export function railSource(hostLocalDir: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'rail-a',
    type: 'sriov',
    ipam: { type: 'host-local', dataDir: hostLocalDir, ranges: [[{ subnet: '192.0.2.0/24' }]] },
  });
}

/**
 * What the driver writes for one VF of `pod` (§6.4, §8.1): the shadow NAD, created, then the Pod's networks
 * annotation and registry. Returns the shadow's name.
 */
export async function bindShadow(client: KubeClient, pod: KubeObject, hostLocalDir: string, pciAddress: string): Promise<string> {
  const [name] = await bindShadows(client, pod, hostLocalDir, [pciAddress]);
  if (name === undefined) throw new Error('one VF bound, no shadow returned');
  return name;
}

/**
 * What the driver writes for several VFs of one claim on `pod`: a shadow NAD per VF (interfaces dra0, dra1 …
 * in the order given), all created, then one networks annotation and one registry naming them all. Returns
 * the shadows' names in the same order.
 */
export async function bindShadows(client: KubeClient, pod: KubeObject, hostLocalDir: string, pciAddresses: readonly string[]): Promise<string[]> {
  const namespace = pod.metadata.namespace ?? '';
  const claimUID = 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607';
  const entries = [];
  for (const [index, pciAddress] of pciAddresses.entries()) {
    const rendered = renderShadowConfig({ metadata: { name: 'rail-a-net', namespace }, spec: { config: railSource(hostLocalDir) } }, pciAddress);
    if (!rendered.ok) throw rendered.error;
    const attachmentID = createHash('sha256').update(`${pod.metadata.uid}/${pciAddress}`).digest('hex');
    const binding: BindingAnnotationV1 = {
      version: 1,
      attachmentID,
      podUID: pod.metadata.uid,
      claimUID,
      nodeName: NODE,
      nodeUID: NODE_UID,
      source: { namespace, name: 'rail-a-net', uid: '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a', resourceVersion: '1' },
      pciAddress,
      interface: `dra${String(index)}`,
      configSHA256: rendered.value.sha256,
    };
    const nad = buildShadowNad(binding, { name: pod.metadata.name, namespace, uid: pod.metadata.uid }, rendered.value);
    if (!nad.ok) throw nad.error;
    const created = await client.create(resourceTypes.networkAttachmentDefinition, nad.value, { namespace });
    entries.push({
      attachmentID,
      claimUID,
      namespace,
      name: shadowNameFor(attachmentID),
      uid: created.metadata.uid,
      interface: binding.interface,
      configSHA256: rendered.value.sha256,
    });
  }
  const registry = serializeRegistry({ version: 1, podUID: pod.metadata.uid, entries });
  await client.patch(
    resourceTypes.pod,
    { namespace, name: pod.metadata.name },
    {
      metadata: {
        annotations: {
          [annotations.networks]: JSON.stringify(entries.map(({ name, interface: ifName }) => ({ name, namespace, interface: ifName }))),
          [annotations.managedNetworks]: registry,
        },
      },
    },
    'application/merge-patch+json',
  );
  return entries.map(({ name }) => name);
}
