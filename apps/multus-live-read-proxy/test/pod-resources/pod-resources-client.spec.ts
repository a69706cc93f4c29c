// The daemon's PodResources client against the kubelet's own v1 server (tools/pod-resources-peer) on a
// real unix socket: what List decodes to, and each way the lookup fails.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPodResourcesError } from '../../src/pod-resources/pod-resources-error.ts';
import { listPodResources } from '../../src/pod-resources/pod-resources-client.ts';
import { buildResourceMap } from '../../src/pod-resources/resource-map.ts';
import { type PeerPod, startPodResourcesPeer } from './pod-resources-peer.ts';

const POD: PeerPod = {
  name: 'trainer',
  namespace: 'ai-workloads',
  uid: '0f5c3a52-8d3e-4b7e-9a51-2d6c1e7b9f10',
  containers: [
    {
      name: 'app',
      devices: [{ resourceName: 'intel.com/sriov_rail', deviceIds: ['0000:3b:00.2', '0000:3b:00.3'] }],
      dynamicResources: [
        {
          claimName: 'nic-claim',
          claimNamespace: 'ai-workloads',
          claimResources: [
            { cdiDevices: ['k8s.sriov.example.com/vf=0000:87:00.4'], driverName: 'sriov.example.com', poolName: 'worker-a', deviceName: 'vf-4' },
          ],
        },
      ],
    },
  ],
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mlrp-podres-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('listPodResources against the kubelet’s PodResources server', () => {
  it('lists every Pod with its device-plugin devices and DRA claims, which the resource map reads as upstream', async () => {
    const peer = await startPodResourcesPeer(dir, [
      POD,
      { ...POD, name: 'other', uid: 'b1', containers: [{ name: 'c', devices: [{ resourceName: 'x', deviceIds: ['y'] }] }] },
    ]);
    try {
      const pods = await listPodResources(peer.socket, AbortSignal.timeout(10_000));
      expect(pods.map((pod) => `${pod.namespace}/${pod.name}`)).toEqual(['ai-workloads/trainer', 'ai-workloads/other']);
      const { map } = buildResourceMap(pods, { name: 'trainer', namespace: 'ai-workloads' });
      expect(Object.fromEntries([...map].map(([key, entry]) => [key, entry.deviceIDs]))).toEqual({
        'intel.com/sriov_rail': ['0000:3b:00.2', '0000:3b:00.3'],
        'nic-claim': ['0000:87:00.4'],
      });
    } finally {
      await peer.stop();
    }
  });

  it('fails with PodResourcesSocketMissing when the kubelet serves no socket there', async () => {
    const error = await failure(listPodResources(join(dir, 'absent.sock'), AbortSignal.timeout(10_000)));
    expect(isPodResourcesError(error, 'PodResourcesSocketMissing')).toBe(true);
  });

  it('fails with PodResourcesListFailed when the socket is left behind by a dead kubelet', async () => {
    const peer = await startPodResourcesPeer(dir, [POD]);
    await peer.kill();
    const error = await failure(listPodResources(peer.socket, AbortSignal.timeout(10_000)));
    expect(isPodResourcesError(error, 'PodResourcesListFailed')).toBe(true);
    expect((error as Error).message).toContain(peer.socket);
  });

  it('gives up when the ADD is aborted, with the ADD’s reason', async () => {
    const peer = await startPodResourcesPeer(dir, [POD]);
    try {
      const controller = new AbortController();
      const reason = new Error('ADD deadline');
      controller.abort(reason);
      expect(await failure(listPodResources(peer.socket, controller.signal))).toBe(reason);
    } finally {
      await peer.stop();
    }
  });
});
