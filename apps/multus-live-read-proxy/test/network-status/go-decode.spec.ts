// The network-status annotation we write, read by the Go code that consumes it: the NAD client v1.7.6's
// GetNetworkStatus (Whereabouts' IP reconciler, Multus, anything built on the client) through
// tools/go-peers. The statuses Go decodes must be the ones written out below by hand from the CNI results,
// and the client's own SetNetworkStatus, given what it decoded, must write our text byte for byte: Go's
// decoder matches keys case-insensitively, so only that second check sees a key spelled in another case.
// Needs the peer binary: `npm run binaries`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GoPeer, type GoNetworkStatus, type GoNetworkStatusOutcome } from '@sriov-dra/cni-render/testing';
import { type DeviceInfo, buildNetworkStatuses, serializeNetworkStatuses } from '../../src/network-status.ts';

const SANDBOX = '/var/run/netns/cni-5f1c';

/** One delegate's ADD as the handler turns it into statuses, and what Go must read from them. */
interface DelegateCase {
  readonly network: string;
  readonly result: unknown;
  readonly master: boolean;
  readonly deviceInfo?: DeviceInfo;
  readonly expected: readonly GoNetworkStatus[];
}

/** The cluster network (bridge): host-side interfaces without a sandbox, dual-stack, default routes. */
const MASTER: DelegateCase = {
  network: 'cbr0',
  result: {
    cniVersion: '1.0.0',
    interfaces: [
      { name: 'cni0', mac: 'ee:c5:3a:10:00:01' },
      { name: 'veth3a7c91f2', mac: '7e:2d:11:04:9a:c0' },
      { name: 'eth0', mac: '0a:58:0a:f4:01:07', mtu: 1450, sandbox: SANDBOX },
    ],
    ips: [
      { address: '10.244.1.7/24', gateway: '10.244.1.1', interface: 2 },
      { address: 'FD00:244:1:0::7/64', gateway: 'fd00:244:1::1', interface: 2 },
    ],
    routes: [
      { dst: '0.0.0.0/0', gw: '10.244.1.1' },
      { dst: '::/0', gw: 'fd00:244:1::1' },
    ],
  },
  master: true,
  expected: [
    {
      name: 'cbr0',
      interface: 'eth0',
      ips: ['10.244.1.7', 'fd00:244:1::7'],
      mac: '0a:58:0a:f4:01:07',
      mtu: 1450,
      default: true,
      dns: {},
      gateway: ['10.244.1.1', 'fd00:244:1::1'],
    },
  ],
};

/** A managed SR-IOV rail: one VF, dual-stack, every DNS member, the device-info of the VF. */
const SRIOV_RAIL: DelegateCase = {
  network: 'ai-workloads/rail-a-net',
  result: {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'net1', mac: '6a:f3:1c:00:3e:01', mtu: 9000, sandbox: SANDBOX }],
    ips: [
      { address: '192.168.10.21/24', gateway: '192.168.10.1', interface: 0 },
      { address: 'fd00:10:0:0::15/64', gateway: 'fd00:10::1', interface: 0 },
    ],
    routes: [{ dst: '192.168.0.0/16', gw: '192.168.10.1' }],
    dns: { nameservers: ['192.168.10.53', 'fd00:10::53'], domain: 'rail-a.example', search: ['ai-workloads.svc.cluster.local'], options: ['ndots:2'] },
  },
  master: false,
  // Members out of struct order on purpose: the written order must still be Go's.
  deviceInfo: { version: '1.1.0', type: 'pci', pci: { 'rdma-device': 'mlx5_7', 'pf-pci-address': '0000:3b:00.0', 'pci-address': '0000:3b:02.1' } },
  expected: [
    {
      name: 'ai-workloads/rail-a-net',
      interface: 'net1',
      ips: ['192.168.10.21', 'fd00:10::15'],
      mac: '6a:f3:1c:00:3e:01',
      mtu: 9000,
      dns: { nameservers: ['192.168.10.53', 'fd00:10::53'], domain: 'rail-a.example', search: ['ai-workloads.svc.cluster.local'], options: ['ndots:2'] },
      'device-info': { type: 'pci', version: '1.1.0', pci: { 'pci-address': '0000:3b:02.1', 'rdma-device': 'mlx5_7', 'pf-pci-address': '0000:3b:00.0' } },
    },
  ],
};

/**
 * One delegate with two Pod interfaces (and a host-side one): each gets the addresses naming it, the one
 * naming none goes to the last; the default route is a device route, whose missing gateway upstream
 * writes as Go's nil IP.
 */
const TWO_PORTS: DelegateCase = {
  network: 'ai-workloads/dual-port',
  result: {
    cniVersion: '1.0.0',
    interfaces: [
      { name: 'net2', mac: '02:42:ac:11:00:02', sandbox: SANDBOX },
      { name: 'vhost-dp0', mac: '02:42:ac:11:00:ff' },
      { name: 'net3', mac: '02:42:ac:11:00:03', sandbox: SANDBOX },
    ],
    ips: [{ address: '172.20.0.2/16', interface: 0 }, { address: '172.21.0.3/16', interface: 2 }, { address: 'fd00:21::3/64' }],
    routes: [{ dst: '0.0.0.0/0' }],
  },
  master: false,
  expected: [
    { name: 'ai-workloads/dual-port', interface: 'net2', ips: ['172.20.0.2'], mac: '02:42:ac:11:00:02', dns: {}, gateway: ['<nil>'] },
    { name: 'ai-workloads/dual-port', interface: 'net3', ips: ['172.21.0.3', 'fd00:21::3'], mac: '02:42:ac:11:00:03', dns: {}, gateway: ['<nil>'] },
  ],
};

/** A layer-2 network without IPAM: no addresses at all. */
const L2_ONLY: DelegateCase = {
  network: 'ai-workloads/l2-only',
  result: { cniVersion: '1.0.0', interfaces: [{ name: 'net4', mac: 'ba:9e:4f:21:7c:10', sandbox: SANDBOX }], ips: [] },
  master: false,
  expected: [{ name: 'ai-workloads/l2-only', interface: 'net4', mac: 'ba:9e:4f:21:7c:10', dns: {} }],
};

const POD_NETWORKS = [MASTER, SRIOV_RAIL, TWO_PORTS, L2_ONLY];

/** The annotation our code writes for these delegates' results, in delegate order as the ADD handler does. */
function ourAnnotation(cases: readonly DelegateCase[]): string {
  return serializeNetworkStatuses(cases.flatMap((c) => buildNetworkStatuses(c.network, c.result, c.master, c.deviceInfo)));
}

let started: GoPeer | undefined;

beforeAll(async () => {
  // Never skipped: without the peer this suite fails, saying how to build it.
  started = await GoPeer.start();
}, 30_000);

afterAll(async () => {
  await started?.close();
});

async function readInGo(text: string): Promise<GoNetworkStatusOutcome> {
  if (started === undefined) throw new Error('the Go peer did not start');
  const answer = await started.send({ kind: 'networkStatus', text });
  if (!answer.ok || answer.networkStatus === undefined) {
    throw new Error(`the NAD client refused the annotation at ${answer.stage ?? 'an unnamed stage'}: ${answer.error ?? 'no error given'}\n${text}`);
  }
  return answer.networkStatus;
}

describe('the network-status annotation, read by the NAD client', () => {
  it.each(POD_NETWORKS.map((c) => [c.network, c] as const))('%s on its own', async (_name, c) => {
    const text = ourAnnotation([c]);
    const read = await readInGo(text);
    expect(read.statuses).toEqual(c.expected);
    expect(read.rewritten).toBe(text);
  });

  it('a Pod on every network at once', async () => {
    const text = ourAnnotation(POD_NETWORKS);
    const read = await readInGo(text);
    expect(read.statuses).toEqual(POD_NETWORKS.flatMap((c) => c.expected));
    expect(read.rewritten).toBe(text);
  });
});

// A check that cannot fail proves nothing: our text with one key misspelt, as a regression would write it.
describe('what each check catches', () => {
  const text = ourAnnotation([SRIOV_RAIL]);

  it('a key in another case: Go still reads it, and writes it back under its own name', async () => {
    const misspelt = text.replace('"ips":', '"IPs":');
    const read = await readInGo(misspelt);
    expect(read.statuses).toEqual(SRIOV_RAIL.expected);
    expect(read.rewritten).not.toBe(misspelt);
  });

  it('a key Go does not know: the member is lost', async () => {
    const read = await readInGo(text.replace('"device-info":', '"device_info":'));
    expect(read.statuses).not.toEqual(SRIOV_RAIL.expected);
    expect(read.statuses[0]?.['device-info']).toBeUndefined();
  });
});
