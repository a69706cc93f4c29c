// The GPU stand-in on a real control plane (kube-apiserver, kube-scheduler, kube-controller-manager) and the
// kubelet's own DRA client (tools/kubelet-peer) on its sockets: the scheduler allocates a GPU by the
// stand-in's published attributes, and prepare and unprepare go through the kubelet's plugin manager.
// Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, contentTypes, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, KubeletPeer, createNamespace, createReadyNode, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { GPU_DRIVER, type GpuStandIn, type StandInGpu, startGpuStandIn } from '../../src/node/gpu-stand-in.ts';

const NODE = 'worker-a';
const NAMESPACE = 'gpu-workloads';
const CLASS = 'nvidia-gpu';
const CLAIM = 'one-gpu';
const GPUS: readonly StandInGpu[] = [
  { name: 'gpu-0', pcieRoot: 'pci0000:3a', uuid: 'GPU-5c2d1c7e-0a4b-4f6e-9d31-3a1f0e2b7c40' },
  { name: 'gpu-1', pcieRoot: 'pci0000:86', uuid: 'GPU-8e4f2a91-6b3c-4d7a-a2e5-1c9d0f3b6e58' },
];
const SLICE = `${NODE}-${GPU_DRIVER}`;

interface StoredSlice extends KubeObject {
  readonly spec: Record<string, unknown>;
}

describe('the GPU stand-in with kube-scheduler and the kubelet peer', () => {
  let dir: string;
  let cp: ControlPlane;
  let standIn: GpuStandIn;
  let peer: KubeletPeer;
  let claim: { namespace: string; name: string; uid: string };
  const options = () => ({
    client: cp.adminClient,
    nodeName: NODE,
    pluginsDir: path.join(dir, 'plugins'),
    registrarDir: path.join(dir, 'plugins_registry'),
    gpus: GPUS,
  });
  const slice = () => cp.adminClient.get<StoredSlice>(resourceTypes.resourceSlice, { name: SLICE });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-stand-in-'));
    cp = await startControlPlane({ controllerManager: true, scheduler: true });
    await createNamespace(cp.adminClient, NAMESPACE);
    await createReadyNode(cp.adminClient, NODE);
    standIn = await startGpuStandIn(options());
    peer = await KubeletPeer.start();
  }, 120_000);

  afterAll(async () => {
    await peer.close();
    await standIn.stop();
    await cp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('publishes both GPUs in one ResourceSlice of a one-slice pool named after the node', async () => {
    expect((await slice()).spec).toEqual({
      driver: GPU_DRIVER,
      nodeName: NODE,
      pool: { name: NODE, generation: 1, resourceSliceCount: 1 },
      devices: GPUS.map((gpu) => ({
        name: gpu.name,
        attributes: { type: { string: 'gpu' }, uuid: { string: gpu.uuid }, 'resource.kubernetes.io/pcieRoot': { string: gpu.pcieRoot } },
      })),
    });
  });

  it('publishes its slice again when it is deleted, as the kubelet deletes a node’s slices at its start', async () => {
    const first = await slice();
    await cp.adminClient.delete(resourceTypes.resourceSlice, { name: SLICE });
    let again: StoredSlice | undefined;
    await waitFor(
      'the slice to be published again',
      async () => {
        again = await slice().catch(() => undefined);
        return again !== undefined && again.metadata.uid !== first.metadata.uid;
      },
      { timeoutMs: 4_000 },
    );
    expect(again?.spec).toEqual(first.spec);
  });

  it('gets the GPU below pci0000:86 allocated and reserved by kube-scheduler', async () => {
    const client = cp.adminClient;
    await client.create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: CLASS },
      spec: { selectors: [{ cel: { expression: `device.driver == "${GPU_DRIVER}" && device.attributes["${GPU_DRIVER}"].type == "gpu"` } }] },
    });
    // gpu-0 comes first in the slice, so only the selector on the standard attribute leads to gpu-1.
    const selectors = [{ cel: { expression: 'device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:86"' } }];
    const created = await client.create(
      resourceTypes.resourceClaim,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name: CLAIM },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: CLASS, count: 1, selectors } }] } },
      },
      { namespace: NAMESPACE },
    );
    claim = { namespace: NAMESPACE, name: CLAIM, uid: created.metadata.uid };
    const pod = await client.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'trainer' },
        spec: {
          resourceClaims: [{ name: 'gpu', resourceClaimName: CLAIM }],
          containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: [{ name: 'gpu' }] } }],
        },
      },
      { namespace: NAMESPACE },
    );
    await waitFor(
      'claim allocated and reserved for the Pod',
      async () => {
        const status = (await readResourceClaim(client, NAMESPACE, CLAIM)).status;
        return status?.allocation !== undefined && (status.reservedFor ?? []).some((consumer) => consumer.uid === pod.metadata.uid);
      },
      { timeoutMs: 30_000 },
    );
    const results = (await readResourceClaim(client, NAMESPACE, CLAIM)).status?.allocation?.devices?.results;
    expect(results?.map((result) => [result.request, result.driver, result.pool, result.device])).toEqual([['gpu', GPU_DRIVER, NODE, 'gpu-1']]);
  }, 60_000);

  it('registers with the kubelet as a v1 DRA plugin', async () => {
    const answer = await peer.send({ op: 'register', socket: standIn.registrationSocket });
    expect({ ok: answer.ok, error: answer.error, kubelet: answer.ok ? '' : peer.log }).toEqual({ ok: true, error: undefined, kubelet: '' });
    expect(answer.result).toEqual({ driverName: GPU_DRIVER, endpoint: path.join(dir, 'plugins', GPU_DRIVER, 'dra.sock'), services: ['v1.DRAPlugin'] });
    expect(standIn.registration()).toEqual({ registered: true, error: '' });
  });

  it('prepares the allocated GPU through the kubelet: its device and its uuid as the CDI device ID', async () => {
    const answer = await peer.send({ op: 'prepare', claims: [claim] });
    expect(answer).toEqual({
      id: answer.id,
      ok: true,
      result: {
        [claim.uid]: {
          devices: [
            {
              requestNames: ['gpu'],
              poolName: NODE,
              deviceName: 'gpu-1',
              cdiDeviceIDs: ['k8s.gpu.nvidia.com/device=GPU-8e4f2a91-6b3c-4d7a-a2e5-1c9d0f3b6e58'],
            },
          ],
          error: '',
        },
      },
    });
    expect(standIn.prepared()).toEqual(new Map([[claim.uid, ['gpu-1']]]));
  });

  it('answers each claim it cannot prepare with that claim’s error alone', async () => {
    const client = cp.adminClient;
    const createClaim = async (name: string): Promise<{ namespace: string; name: string; uid: string }> => {
      const spec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: CLASS } }] } };
      const created = await client.create(
        resourceTypes.resourceClaim,
        { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, spec },
        { namespace: NAMESPACE },
      );
      return { namespace: NAMESPACE, name, uid: created.metadata.uid };
    };
    // No Pod uses it, so the scheduler leaves it unallocated.
    const unallocated = await createClaim('unallocated');
    // Allocated as another node's scheduler would have, to a device of the same name in that node's pool.
    const elsewhere = await createClaim('elsewhere');
    const results = [{ request: 'gpu', driver: GPU_DRIVER, pool: 'worker-b', device: 'gpu-1' }];
    await client.patch(
      resourceTypes.resourceClaim,
      { namespace: NAMESPACE, name: elsewhere.name, subresource: 'status' },
      { status: { allocation: { devices: { results } } } },
      contentTypes.mergePatch,
    );
    const replaced = { ...claim, uid: '00000000-0000-4000-8000-000000000001' };
    const missing = { namespace: NAMESPACE, name: 'no-such-claim', uid: '00000000-0000-4000-8000-000000000002' };

    const answer = await peer.send({ op: 'prepare', claims: [replaced, claim, missing, unallocated, elsewhere] });
    expect(answer.ok).toBe(true);
    const result = answer.result as Record<string, { devices?: unknown[]; error: string }>;
    const errors = Object.fromEntries(Object.entries(result).map(([uid, entry]) => [uid, [entry.devices, entry.error]]));
    expect(errors).toEqual({
      [claim.uid]: [[expect.objectContaining({ deviceName: 'gpu-1' })], ''],
      [replaced.uid]: [undefined, expect.stringContaining(`the ResourceClaim by that name has UID ${claim.uid}`)],
      [missing.uid]: [undefined, expect.stringContaining('the ResourceClaim does not exist')],
      [unallocated.uid]: [undefined, expect.stringContaining('the ResourceClaim is not allocated')],
      [elsewhere.uid]: [undefined, expect.stringContaining(`allocated device worker-b/gpu-1 is not a GPU of node ${NODE}`)],
    });
    expect(standIn.prepared()).toEqual(new Map([[claim.uid, ['gpu-1']]]));
  });

  it('unprepares through the kubelet, and again without error', async () => {
    for (let round = 0; round < 2; round++) {
      const answer = await peer.send({ op: 'unprepare', claims: [claim] });
      expect({ ok: answer.ok, result: answer.result }).toEqual({ ok: true, result: { [claim.uid]: { error: '' } } });
      expect(standIn.prepared()).toEqual(new Map());
    }
  });

  it('removes both sockets on stop, keeps the slice, and replaces it when started again with other GPUs', async () => {
    await peer.close();
    await standIn.stop();
    expect([standIn.registrationSocket, standIn.draSocket].map((socket) => fs.existsSync(socket))).toEqual([false, false]);
    const kept = await slice();
    expect((kept.spec['devices'] as unknown[]).length).toBe(2);

    standIn = await startGpuStandIn({ ...options(), gpus: GPUS.slice(0, 1) });
    const replaced = await slice();
    expect(replaced.metadata.uid).toBe(kept.metadata.uid);
    expect(replaced.spec['devices']).toEqual([expect.objectContaining({ name: 'gpu-0' })]);
    // The peer is restarted so that afterAll closes a live one.
    peer = await KubeletPeer.start();
  });
});
