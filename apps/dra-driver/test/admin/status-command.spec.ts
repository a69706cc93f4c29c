// `sriov-dra status` as its own process against a real API server, with a cluster whose counts are known
// from how it was built: worker-1 Ready with 2 slices of 3 and 2 VFs, worker-2 not Ready with 1 slice of 4;
// claim "pairs" allocated 2 VFs of worker-1 (and a GPU) for trainer, which has one attached shadow and one
// VF not prepared; claim "spare" allocated 1 VF of worker-2; and two shadows on worker-1 whose Pods are
// gone: one deleted, one deleted and created again under the same name.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ATTACHMENT_PROTECTION_FINALIZER,
  DRIVER_NAME,
  MANAGED_BY_VALUE,
  annotations,
  labels,
  serializeBindingAnnotation,
  serializeRegistry,
  shadowNameFor,
} from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { parse } from 'yaml';
import { CheckpointStore } from '../../src/checkpoint/checkpoint-store.ts';
import { sriovDra } from './run-sriov-dra.ts';

const NS = 'ai-workloads';
const CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.2"}';
const SHA = createHash('sha256').update(CONFIG).digest('hex');
const SOURCE = { namespace: NS, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' };

let cp: ControlPlane;
let admin: KubeClient;
let kubeconfig: string;
let pluginsDir: string;
let worker1: KubeObject;
let trainer: KubeObject;
let pairs: KubeObject;
const shadows: Record<'attached' | 'gone' | 'replaced', KubeObject | undefined> = { attached: undefined, gone: undefined, replaced: undefined };

async function slice(name: string, nodeName: string, devices: number, count: number): Promise<void> {
  await admin.create(resourceTypes.resourceSlice, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: {
      driver: DRIVER_NAME,
      nodeName,
      pool: { name: nodeName, generation: 1, resourceSliceCount: count },
      devices: Array.from({ length: devices }, (_, index) => ({ name: `${name}-vf-${index}` })),
    },
  });
}

async function claim(name: string, results: { pool: string; device: string; driver?: string }[], reservedFor?: KubeObject): Promise<KubeObject> {
  await admin.create(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: NS },
      spec: { devices: { requests: [{ name: 'nic', exactly: { deviceClassName: 'sriov-vf', count: results.length } }] } },
    },
    { namespace: NS },
  );
  return admin.patch(
    resourceTypes.resourceClaim,
    { namespace: NS, name, subresource: 'status' },
    {
      status: {
        allocation: { devices: { results: results.map((result) => ({ request: 'nic', driver: DRIVER_NAME, ...result })) } },
        ...(reservedFor === undefined ? {} : { reservedFor: [{ resource: 'pods', name: reservedFor.metadata.name, uid: reservedFor.metadata.uid }] }),
      },
    },
    contentTypes.mergePatch,
  );
}

function pod(name: string, nodeName: string): Promise<KubeObject> {
  return admin.create(
    resourceTypes.pod,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { nodeName, containers: [{ name: 'c', image: 'registry.invalid/c' }] } },
    { namespace: NS },
  );
}

function shadow(digit: string, owner: KubeObject, claimUID: string): Promise<KubeObject> {
  const attachmentID = digit.repeat(64);
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: shadowNameFor(attachmentID),
        namespace: NS,
        labels: {
          [labels.managedBy]: MANAGED_BY_VALUE,
          [labels.podUID]: owner.metadata.uid,
          [labels.claimUID]: claimUID,
          [labels.nodeUID]: worker1.metadata.uid,
        },
        annotations: {
          [annotations.binding]: serializeBindingAnnotation({
            version: 1,
            attachmentID,
            podUID: owner.metadata.uid,
            claimUID,
            nodeName: 'worker-1',
            nodeUID: worker1.metadata.uid,
            source: SOURCE,
            pciAddress: '0000:3b:00.2',
            interface: 'net1',
            configSHA256: SHA,
          }),
        },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: false }],
        finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
      },
      spec: { config: CONFIG },
    },
    { namespace: NS },
  );
}

/** Deletes a Pod no kubelet runs at once (a bound Pod otherwise waits for its kubelet to confirm). */
async function forceDelete(name: string): Promise<void> {
  await admin.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  kubeconfig = cp.kubeconfigFor('admin', { groups: ['system:masters'] });
  pluginsDir = mkdtempSync(join(tmpdir(), 'status-'));

  worker1 = await createReadyNode(admin, 'worker-1');
  // No kubelet ever reported worker-2: it has no Ready condition.
  await admin.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' } });
  await slice('worker-1-sriov-0', 'worker-1', 3, 2);
  await slice('worker-1-sriov-1', 'worker-1', 2, 2);
  await slice('worker-2-sriov-0', 'worker-2', 4, 1);

  trainer = await pod('trainer', 'worker-1');
  pairs = await claim(
    'pairs',
    [
      { pool: 'worker-1', device: '0000-3b-00-2' },
      { pool: 'worker-1', device: '0000-3b-00-3' },
      { pool: 'worker-1', device: 'gpu-0', driver: 'gpu.nvidia.com' },
    ],
    trainer,
  );
  await claim('spare', [{ pool: 'worker-2', device: '0000-87-00-2' }]);

  shadows.attached = await shadow('a', trainer, pairs.metadata.uid);
  await admin.patch(
    resourceTypes.pod,
    { namespace: NS, name: 'trainer' },
    {
      metadata: {
        annotations: {
          [annotations.managedNetworks]: serializeRegistry({
            version: 1,
            podUID: trainer.metadata.uid,
            entries: [
              {
                attachmentID: 'a'.repeat(64),
                claimUID: pairs.metadata.uid,
                namespace: NS,
                name: shadows.attached.metadata.name,
                uid: shadows.attached.metadata.uid,
                interface: 'net1',
                configSHA256: SHA,
              },
            ],
          }),
          [annotations.networkStatus]: JSON.stringify([{ name: `${NS}/${shadows.attached.metadata.name}`, interface: 'net1', ips: ['192.0.2.10'] }]),
        },
      },
    },
    contentTypes.mergePatch,
  );

  shadows.gone = await shadow('b', await pod('deleted', 'worker-1'), pairs.metadata.uid);
  await forceDelete('deleted');
  shadows.replaced = await shadow('c', await pod('recreated', 'worker-1'), pairs.metadata.uid);
  await forceDelete('recreated');
  await pod('recreated', 'worker-2');

  mkdirSync(join(pluginsDir, DRIVER_NAME));
  const store = await CheckpointStore.open({ directory: join(pluginsDir, DRIVER_NAME) });
  const podRef = { uid: trainer.metadata.uid, namespace: NS, name: 'trainer' };
  await store.upsertClaim({
    claimUID: pairs.metadata.uid,
    claimNamespace: NS,
    claimName: 'pairs',
    pod: podRef,
    devices: [
      {
        pool: 'worker-1',
        device: '0000-3b-00-2',
        requestNames: ['nic'],
        pciAddress: '0000:3b:00.2',
        originalDriver: 'mlx5_core',
        preparedDriver: 'mlx5_core',
        cdiDeviceIDs: [`${DRIVER_NAME}/vf=${pairs.metadata.uid}-0000-3b-00-2`],
        managedBinding: {
          bindingVersion: 1,
          phase: 'Ready',
          attachmentID: 'a'.repeat(64),
          podUID: podRef.uid,
          podNamespace: NS,
          podName: podRef.name,
          claimUID: pairs.metadata.uid,
          claimNamespace: NS,
          claimName: 'pairs',
          nodeName: 'worker-1',
          nodeUID: worker1.metadata.uid,
          driver: DRIVER_NAME,
          pool: 'worker-1',
          device: '0000-3b-00-2',
          requestNames: ['nic'],
          pciAddress: '0000:3b:00.2',
          interface: 'net1',
          source: SOURCE,
          shadow: { namespace: NS, name: shadows.attached.metadata.name, uid: shadows.attached.metadata.uid },
          renderedConfig: CONFIG,
          configSHA256: SHA,
        },
      },
    ],
  });
}, 120_000);

afterAll(async () => {
  await cp.stop();
  rmSync(pluginsDir, { recursive: true, force: true });
});

const NO_BINDINGS = {
  attached: 0,
  'pending-cni': 0,
  'not-prepared': 0,
  'shadow-missing': 0,
  'shadow-terminating': 0,
  'shadow-replaced': 0,
  'shadow-unreadable': 0,
};

describe('sriov-dra status', () => {
  it('counts every node’s VFs, bindings and API orphans, with totals', async () => {
    const json = await sriovDra('status', '--kubeconfig', kubeconfig, '-o', 'json');
    expect([json.code, json.stderr]).toEqual([0, '']);
    const orphans = [
      { shadow: `${NS}/${shadows.gone?.metadata.name ?? ''}`, reason: 'pod-gone', podUID: shadows.gone?.metadata.labels?.[labels.podUID] },
      { shadow: `${NS}/${shadows.replaced?.metadata.name ?? ''}`, reason: 'pod-replaced', podUID: shadows.replaced?.metadata.labels?.[labels.podUID] },
    ];
    expect(JSON.parse(json.stdout)).toEqual({
      nodes: [
        {
          node: 'worker-1',
          nodeReady: true,
          driverReady: true,
          vfsPublished: 5,
          vfsAllocated: 2,
          vfsManaged: 1,
          bindings: { ...NO_BINDINGS, attached: 1, 'not-prepared': 1 },
          orphans,
          unreadableRegistries: [],
        },
        {
          node: 'worker-2',
          nodeReady: false,
          driverReady: false,
          vfsPublished: 4,
          vfsAllocated: 1,
          vfsManaged: 0,
          bindings: NO_BINDINGS,
          orphans: [],
          unreadableRegistries: [],
        },
      ],
      totals: {
        nodes: 2,
        driversReady: 1,
        vfsPublished: 9,
        vfsAllocated: 3,
        vfsManaged: 1,
        bindings: { ...NO_BINDINGS, attached: 1, 'not-prepared': 1 },
        orphans: 2,
      },
    });

    const table = await sriovDra('status', '--kubeconfig', kubeconfig);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines.slice(0, 4).map((line) => line.split(/ {2,}/))).toEqual([
      ['NODE', 'READY', 'DRIVER', 'VFS', 'ALLOCATED', 'MANAGED', 'BINDINGS', 'ORPHANS'],
      ['worker-1', 'yes', 'ready', '5', '2', '1', 'attached=1 not-prepared=1', '2'],
      ['worker-2', 'no', 'no', '4', '1', '0', '-', '0'],
      ['TOTAL', '2 nodes', '1 ready', '9', '3', '1', 'attached=1 not-prepared=1', '2'],
    ]);
    expect(lines.at(-2)).toContain('sriov-dra orphans --node-name NODE');
  }, 60_000);

  it('shows one node with --node-name, its checkpoint’s phases with --plugins-dir, as YAML', async () => {
    const result = await sriovDra('status', '--node-name', 'worker-1', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig, '-o', 'yaml');
    expect([result.code, result.stderr]).toEqual([0, '']);
    const overview = parse(result.stdout) as { nodes: Record<string, unknown>[]; totals: Record<string, unknown> };
    expect(overview.nodes.map((node) => [node['node'], node['vfsPublished'], node['vfsAllocated'], node['vfsManaged'], node['checkpointPhases']])).toEqual([
      ['worker-1', 5, 2, 1, { Ready: 1 }],
    ]);
    expect(overview.nodes[0]?.['orphans']).toEqual([
      expect.objectContaining({ reason: 'pod-gone' }),
      // Its Pod's name now belongs to a Pod on another node: found by name, not by listing this node.
      expect.objectContaining({ reason: 'pod-replaced' }),
    ]);
    expect(overview.totals['nodes']).toBe(1);
  }, 60_000);

  it('refuses --plugins-dir without --node-name, and a missing node, in one line each', async () => {
    const usage = await sriovDra('status', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig);
    expect([usage.code, usage.stdout, usage.stderr.split('\n').length]).toEqual([1, '', 2]);
    expect(usage.stderr).toContain('InvalidCommandLine');
    const missing = await sriovDra('status', '--node-name', 'worker-9', '--kubeconfig', kubeconfig);
    expect([missing.code, missing.stdout, missing.stderr.split('\n').length]).toEqual([1, '', 2]);
    expect(missing.stderr).toContain('ApiNotFound');
  }, 60_000);
});
