// The claim's status.devices after Multus attached managed VFs, on a real API server (which validates
// networkData: CIDRs, lengths, entries only for allocated devices): this driver's entries get interface,
// addresses, MAC and conditions from the Pod's network-status; another driver's entry is left as it is.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { networkStatusEntries, writeClaimNetworkStatus } from '../../src/managed/claim-network-status.ts';

const NS = 'ai-workloads';
const POOL = 'worker-1';
const NOW = new Date('2026-11-30T12:00:00Z');

let cp: ControlPlane;
let admin: KubeClient;

type Claim = KubeObject & { status?: { devices?: Record<string, unknown>[] } };

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await createNamespace(admin, NS);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

/** A claim allocated two VFs of this driver and one GPU, with the GPU driver's own status entry. */
async function allocatedClaim(): Promise<Claim> {
  const claim = await admin.create<Claim>(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'pairs', namespace: NS },
      spec: {
        devices: {
          requests: [
            { name: 'nic', exactly: { deviceClassName: 'sriov-vf', count: 2 } },
            { name: 'gpu', exactly: { deviceClassName: 'gpu', count: 1 } },
          ],
        },
      },
    },
    { namespace: NS },
  );
  const results = [
    { request: 'nic', driver: DRIVER_NAME, pool: POOL, device: '0000-3b-00-2' },
    { request: 'nic', driver: DRIVER_NAME, pool: POOL, device: '0000-3b-00-3' },
    { request: 'gpu', driver: 'gpu.nvidia.com', pool: POOL, device: 'gpu-0' },
  ];
  return admin
    .patch<Claim>(
      resourceTypes.resourceClaim,
      { namespace: NS, name: 'pairs', subresource: 'status' },
      {
        status: {
          allocation: { devices: { results } },
          devices: [{ driver: 'gpu.nvidia.com', pool: POOL, device: 'gpu-0', data: { uuid: 'GPU-1234' } }],
        },
      },
      'application/merge-patch+json',
    )
    .then(() => admin.get<Claim>(resourceTypes.resourceClaim, { namespace: NS, name: claim.metadata.name }));
}

// The shadow's frozen configuration: its host-local ranges give the reported addresses their prefixes.
const RENDERED = JSON.stringify({
  cniVersion: '1.0.0',
  name: 'rail-a',
  type: 'sriov',
  deviceID: '0000:3b:00.2',
  ipam: { type: 'host-local', ranges: [[{ subnet: '192.0.2.0/24' }], [{ subnet: '2001:db8::/64' }]] },
});

const NETWORK_STATUS = JSON.stringify([
  { name: 'ovn-kubernetes', interface: 'eth0', ips: ['10.128.0.12'], default: true },
  { name: `${NS}/sriov-dra-aaaa`, interface: 'net1', ips: ['192.0.2.14', '2001:db8::14'], mac: '02:00:00:00:00:01' },
]);

describe('claim network status', () => {
  it('writes networkData and conditions for the VFs Multus reported, keeps the GPU driver’s entry, and nothing more a second time', async () => {
    const claim = await allocatedClaim();
    const reports = networkStatusEntries(
      DRIVER_NAME,
      NETWORK_STATUS,
      [
        { pool: POOL, device: '0000-3b-00-2', shadow: { namespace: NS, name: 'sriov-dra-aaaa' }, renderedConfig: RENDERED },
        // Not attached yet: no entry, nothing claimed before it is true.
        { pool: POOL, device: '0000-3b-00-3', shadow: { namespace: NS, name: 'sriov-dra-bbbb' }, renderedConfig: RENDERED },
      ],
      NOW,
    );
    const at = { namespace: NS, name: 'pairs', uid: claim.metadata.uid };
    await expect(writeClaimNetworkStatus(admin, at, reports)).resolves.toBe(true);
    const stored = await admin.get<Claim>(resourceTypes.resourceClaim, { namespace: NS, name: 'pairs' });
    expect(stored.status?.devices).toEqual([
      // As the API server stores the GPU driver's own write (its Go type serializes no conditions as null).
      { driver: 'gpu.nvidia.com', pool: POOL, device: 'gpu-0', data: { uuid: 'GPU-1234' }, conditions: null },
      {
        driver: DRIVER_NAME,
        pool: POOL,
        device: '0000-3b-00-2',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'MultusAttached',
            message: `attached by Multus through ${NS}/sriov-dra-aaaa`,
            lastTransitionTime: '2026-11-30T12:00:00Z',
          },
          {
            type: 'NetworkReady',
            status: 'True',
            reason: 'MultusAttached',
            message: `attached by Multus through ${NS}/sriov-dra-aaaa`,
            lastTransitionTime: '2026-11-30T12:00:00Z',
          },
        ],
        networkData: { interfaceName: 'net1', ips: ['192.0.2.14/24', '2001:db8::14/64'], hardwareAddress: '02:00:00:00:00:01' },
      },
    ]);
    // A later report of the same facts keeps lastTransitionTime and writes nothing.
    const later = networkStatusEntries(
      DRIVER_NAME,
      NETWORK_STATUS,
      [{ pool: POOL, device: '0000-3b-00-2', shadow: { namespace: NS, name: 'sriov-dra-aaaa' }, renderedConfig: RENDERED }],
      new Date('2026-11-30T13:00:00Z'),
    );
    await expect(writeClaimNetworkStatus(admin, at, later)).resolves.toBe(false);
  }, 30_000);

  it('reports nothing from a missing or unreadable network-status', () => {
    const devices = [{ pool: POOL, device: '0000-3b-00-2', shadow: { namespace: NS, name: 'sriov-dra-aaaa' }, renderedConfig: RENDERED }];
    expect(networkStatusEntries(DRIVER_NAME, undefined, devices, NOW)).toEqual([]);
    expect(networkStatusEntries(DRIVER_NAME, '{"name":', devices, NOW)).toEqual([]);
    expect(networkStatusEntries(DRIVER_NAME, '[{"interface":"net1"}]', devices, NOW)).toEqual([]);
  });
});
