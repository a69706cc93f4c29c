// An ordinary NAD with k8s.v1.cni.cncf.io/resourceName on a real node, the way device-plugin SR-IOV networks
// run under upstream Multus: a device plugin registers an extended resource of VFs with the real kubelet,
// the Pod requests it, and the Multus daemon reads the kubelet's PodResources to hand the VF the kubelet
// allocated to the sriov plugin as deviceID. The NAD names no device, so a daemon that ignored resourceName
// would leave the sriov plugin without one and the Pod would never run.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Metadata, credentials } from '@grpc/grpc-js';
import { DRIVER_NAME, annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { podResourcesV1 } from '@sriov-dra/kubelet-api';
import { waitFor } from '@sriov-dra/k8s/testing';
import { type DevicePluginStandIn, startDevicePluginStandIn } from '../../src/node/device-plugin-stand-in.ts';
import { type RealStack, startRealStack } from '../../src/real-node/real-stack.ts';
import { containerAddresses, deletePodAndWait, onRealNode, waitRunning } from '../../src/real-node/workload.ts';
import { NODE_NAME, WORKLOADS } from '../../src/stack/stack.ts';
import { deleteWorkloadPods, expectNothingLeft } from './real-pod.ts';

/** An extended resource: a domain of our own, then a qualified name (the kubelet refuses anything else). */
const RESOURCE = 'sriov-dra.example/legacy_vf';

/** Two networks on the same resource, each with its own host-local range of one subnet. */
const NETWORKS = [
  { nad: 'legacy-vf-a', network: 'legacy-vf-a', start: '203.0.113.10', end: '203.0.113.99' },
  { nad: 'legacy-vf-b', network: 'legacy-vf-b', start: '203.0.113.110', end: '203.0.113.199' },
] as const;
const SUBNET = '203.0.113.0/24';

function ipNumber(ip: string): number {
  return ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
}

function inRange(ip: string, network: (typeof NETWORKS)[number]): boolean {
  return ipNumber(ip) >= ipNumber(network.start) && ipNumber(ip) <= ipNumber(network.end);
}

/** The device plugin's NAD as an administrator writes one: sriov without deviceID, the resource on the annotation. */
async function createResourceNad(stack: RealStack, network: (typeof NETWORKS)[number]): Promise<void> {
  const config = {
    cniVersion: '1.0.0',
    name: network.network,
    type: 'sriov',
    ipam: { type: 'host-local', dataDir: stack.hardware.hostLocalDir, ranges: [[{ subnet: SUBNET, rangeStart: network.start, rangeEnd: network.end }]] },
  };
  await stack.admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: network.nad, annotations: { [annotations.resourceName]: RESOURCE } },
      spec: { config: JSON.stringify(config) },
    },
    { namespace: WORKLOADS },
  );
}

/** A Pod asking for `networks` (each a NAD on the resource) and one device of the resource per network. */
function resourcePod(stack: RealStack, name: string, networks: readonly string[]): Record<string, unknown> {
  return onRealNode(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, annotations: { [annotations.networks]: networks.join(',') } },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [{ name: 'workload', image: 'registry.example.com/app:1', resources: { limits: { [RESOURCE]: String(networks.length) } } }],
      },
    },
    stack.images.busybox.image,
  );
}

/** The resource's device IDs the kubelet allocated to the Pod's container, as its PodResources List reports them. */
async function kubeletDevices(stack: RealStack, pod: string): Promise<string[]> {
  const socket = path.join(stack.node.kubeletDir, 'pod-resources', 'kubelet.sock');
  const client = new podResourcesV1.PodResourcesListerClient(`unix:${socket}`, credentials.createInsecure());
  try {
    const response = await new Promise<podResourcesV1.ListPodResourcesResponse>((resolve, reject) => {
      client.list({}, new Metadata(), { deadline: Date.now() + 10_000 }, (error, answer) => {
        if (error === null) resolve(answer);
        else reject(error);
      });
    });
    const entry = response.podResources.find((candidate) => candidate.namespace === WORKLOADS && candidate.name === pod);
    if (entry === undefined) throw new Error(`the kubelet's PodResources lists no Pod ${WORKLOADS}/${pod}`);
    return entry.containers
      .flatMap((container) => container.devices)
      .filter((devices) => devices.resourceName === RESOURCE)
      .flatMap((devices) => devices.deviceIds)
      .sort();
  } finally {
    client.close();
  }
}

function linkMac(netdev: string): string {
  const [link] = JSON.parse(execFileSync('ip', ['-j', 'link', 'show', 'dev', netdev], { encoding: 'utf8' })) as { address: string }[];
  if (link === undefined) throw new Error(`no link ${netdev}`);
  return link.address;
}

/** MAC addresses per interface as the container's own `ip -o link` prints them. */
function containerMacs(stack: RealStack, pod: string): Map<string, string> {
  const text = stack.kubectl(['exec', '-n', WORKLOADS, pod, '--', 'ip', '-o', 'link', 'show']);
  const macs = new Map<string, string>();
  for (const line of text.split('\n')) {
    // "3: net1: <BROADCAST,...> mtu 1500 ... link/ether 6a:...:01 brd ff:ff:ff:ff:ff:ff"
    const match = /^\d+:\s+([^:@\s]+)[:@].*link\/ether\s+([0-9a-f:]{17})/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) macs.set(match[1], match[2]);
  }
  return macs;
}

interface NetworkStatus {
  readonly name: string;
  readonly interface?: string;
  readonly ips?: readonly string[];
  readonly mac?: string;
}

/** What one secondary attachment shows, from network-status, the container, and the VF whose MAC it carries. */
interface Attachment {
  readonly network: string;
  readonly interface: string;
  readonly vf: string;
  readonly ipInRange: boolean;
  readonly containerShowsIp: boolean;
}

describe('resourceName NADs on a real node: the VF the kubelet allocated', () => {
  let stack: RealStack;
  let plugin: DevicePluginStandIn | undefined;
  let passed = true;

  beforeAll(async () => {
    stack = await startRealStack({ log: (line) => process.stderr.write(`${line}\n`) });
  }, 600_000);

  afterEach(async () => {
    await deleteWorkloadPods(stack);
  }, 180_000);

  afterAll(async () => {
    await plugin?.stop();
    await stack.stop(!passed);
  }, 300_000);

  it('each network gets one of the Pod’s allocated VFs as the kubelet reports them; deletion gives them back', async () => {
    passed = false;
    // The plugin's VFs: the second PF's first four. No SriovResourcePolicy exists here, so the DRA driver publishes none of them.
    const pf = stack.hardware.pfs[1];
    if (pf === undefined) throw new Error('the simulated node has no second PF');
    // Every VF's MAC before any Pod: the link in the container is identified by it.
    const everyVf = stack.hardware.pfs.flatMap((each) =>
      each.vfs.map((vf) => {
        if (vf.netdev === undefined) throw new Error(`VF ${vf.pciAddress} has no netdev`);
        return { pciAddress: vf.pciAddress, netdev: vf.netdev, mac: linkMac(vf.netdev) };
      }),
    );
    const poolPcis = new Set(pf.vfs.slice(0, 4).map((vf) => vf.pciAddress));
    const pool = everyVf.filter((vf) => poolPcis.has(vf.pciAddress));
    const slices = await stack.admin.list<KubeObject & { spec?: { driver?: string } }>(resourceTypes.resourceSlice);
    const published = JSON.stringify(slices.items.filter((slice) => slice.spec?.driver === DRIVER_NAME));
    expect(pool.filter((vf) => published.includes(vf.pciAddress))).toEqual([]);

    plugin = await startDevicePluginStandIn({ resourceName: RESOURCE, deviceIds: pool.map((vf) => vf.pciAddress) });
    await waitFor(
      `Node ${NODE_NAME} to offer ${String(pool.length)} ${RESOURCE}`,
      async () => {
        const node = await stack.admin.get<KubeObject & { status?: { allocatable?: Record<string, string> } }>(resourceTypes.node, { name: NODE_NAME });
        return node.status?.allocatable?.[RESOURCE] === String(pool.length);
      },
      { timeoutMs: 60_000, describe: () => stack.node.logTail() },
    );
    for (const network of NETWORKS) await createResourceNad(stack, network);

    const pods = [
      { name: 'legacy-one', networks: [NETWORKS[0].nad] },
      { name: 'legacy-two', networks: [NETWORKS[0].nad, NETWORKS[1].nad] },
    ];
    const allocatedByPod = new Map<string, string[]>();
    // One Pod at a time, the first still running when the second starts: a wrong device shows on the first.
    for (const pod of pods) {
      await stack.admin.create(resourceTypes.pod, resourcePod(stack, pod.name, pod.networks), { namespace: WORKLOADS });
      await waitRunning(stack, WORKLOADS, pod.name);
      const allocated = await kubeletDevices(stack, pod.name);
      allocatedByPod.set(pod.name, allocated);
      expect(allocated).toHaveLength(pod.networks.length);
      const raw = (await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name: pod.name })).metadata.annotations?.[annotations.networkStatus];
      const statuses = (JSON.parse(raw ?? '[]') as NetworkStatus[]).filter((status) => pod.networks.some((nad) => status.name === `${WORKLOADS}/${nad}`));
      const macs = containerMacs(stack, pod.name);
      const addresses = containerAddresses(stack, WORKLOADS, pod.name);
      const attachments: Attachment[] = statuses.map((status) => {
        const ifName = status.interface ?? '';
        const vf = everyVf.find((candidate) => candidate.mac === status.mac && macs.get(ifName) === candidate.mac);
        const network = NETWORKS.find((candidate) => status.name === `${WORKLOADS}/${candidate.nad}`);
        const ip = status.ips?.[0] ?? '';
        return {
          network: status.name,
          interface: ifName,
          vf: vf?.pciAddress ?? `no VF of the node (mac ${status.mac ?? '-'}, container ${macs.get(ifName) ?? '-'})`,
          ipInRange: network !== undefined && inRange(ip, network),
          containerShowsIp: (addresses.get(ifName) ?? []).includes(ip),
        };
      });
      // Each network on its own interface, on a VF the kubelet allocated to this Pod, with its range's address.
      expect(attachments.map((attachment) => ({ ...attachment, vf: allocated.includes(attachment.vf) ? 'allocated' : attachment.vf }))).toEqual(
        pod.networks.map((nad, index) => ({
          network: `${WORKLOADS}/${nad}`,
          interface: `net${String(index + 1)}`,
          vf: 'allocated',
          ipInRange: true,
          containerShowsIp: true,
        })),
      );
      expect(attachments.map((attachment) => attachment.vf).sort()).toEqual(allocated);
    }
    // The kubelet's choices are the device plugin's Allocate calls, and no VF went to two Pods.
    const everyAllocated = [...allocatedByPod.values()].flat().sort();
    expect(new Set(everyAllocated).size).toBe(everyAllocated.length);
    expect(plugin.allocations().flat().sort()).toEqual(everyAllocated);
    const onHost = stack.hardware.vfLinksOnHost();
    expect(
      pool
        .filter((vf) => !onHost.includes(vf.netdev))
        .map((vf) => vf.netdev)
        .sort(),
    ).toEqual(
      pool
        .filter((vf) => everyAllocated.includes(vf.pciAddress))
        .map((vf) => vf.netdev)
        .sort(),
    );

    for (const pod of pods) await deletePodAndWait(stack.admin, WORKLOADS, pod.name);
    await expectNothingLeft(stack);
    passed = true;
  }, 300_000);
});
