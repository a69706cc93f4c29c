// `sriov-dra orphans` as its own process against a real API server and a checkpoint file written by the
// driver's own store: the shadow the checkpoint records is accounted for, the one it does not is listed,
// and nothing is changed.
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
  shadowNameFor,
} from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { CheckpointStore } from '../../src/checkpoint/checkpoint-store.ts';
import { sriovDra } from './run-sriov-dra.ts';

const NS = 'ai-workloads';
const POD = { uid: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0', namespace: NS, name: 'trainer-0' };
const CLAIM_UID = '7b0f3b5e-2f4c-4d8a-9e61-0c1d2e3f4a5b';
const CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.2"}';

let cp: ControlPlane;
let admin: KubeClient;
let nodeUID: string;
let pluginsDir: string;

async function shadow(digit: string): Promise<KubeObject> {
  const attachmentID = digit.repeat(64);
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: shadowNameFor(attachmentID),
        namespace: NS,
        labels: { [labels.managedBy]: MANAGED_BY_VALUE, [labels.podUID]: POD.uid, [labels.claimUID]: CLAIM_UID, [labels.nodeUID]: nodeUID },
        annotations: {
          [annotations.binding]: serializeBindingAnnotation({
            version: 1,
            attachmentID,
            podUID: POD.uid,
            claimUID: CLAIM_UID,
            nodeName: 'worker-1',
            nodeUID,
            source: { namespace: NS, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' },
            pciAddress: '0000:3b:00.2',
            interface: 'net1',
            configSHA256: createHash('sha256').update(CONFIG).digest('hex'),
          }),
        },
        finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
      },
      spec: { config: CONFIG },
    },
    { namespace: NS },
  );
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  nodeUID = (await admin.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } })).metadata.uid;
  pluginsDir = mkdtempSync(join(tmpdir(), 'orphans-'));
}, 120_000);

afterAll(async () => {
  await cp.stop();
  rmSync(pluginsDir, { recursive: true, force: true });
});

describe('sriov-dra orphans', () => {
  it('lists the shadow the checkpoint does not record, and only that one', async () => {
    const recorded = await shadow('a');
    const orphan = await shadow('b');
    mkdirSync(join(pluginsDir, DRIVER_NAME));
    const store = await CheckpointStore.open({ directory: join(pluginsDir, DRIVER_NAME) });
    await store.upsertClaim({
      claimUID: CLAIM_UID,
      claimNamespace: NS,
      claimName: 'pairs',
      pod: POD,
      devices: [
        {
          pool: 'worker-1',
          device: '0000-3b-00-2',
          requestNames: ['nic'],
          pciAddress: '0000:3b:00.2',
          originalDriver: 'mlx5_core',
          preparedDriver: 'mlx5_core',
          cdiDeviceIDs: [`${DRIVER_NAME}/vf=${CLAIM_UID}-0000-3b-00-2`],
          managedBinding: {
            bindingVersion: 1,
            phase: 'Ready',
            attachmentID: 'a'.repeat(64),
            podUID: POD.uid,
            podNamespace: NS,
            podName: POD.name,
            claimUID: CLAIM_UID,
            claimNamespace: NS,
            claimName: 'pairs',
            nodeName: 'worker-1',
            nodeUID,
            driver: DRIVER_NAME,
            pool: 'worker-1',
            device: '0000-3b-00-2',
            requestNames: ['nic'],
            pciAddress: '0000:3b:00.2',
            interface: 'net1',
            source: { namespace: NS, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' },
            shadow: { namespace: NS, name: recorded.metadata.name, uid: recorded.metadata.uid },
            renderedConfig: CONFIG,
            configSHA256: createHash('sha256').update(CONFIG).digest('hex'),
          },
        },
      ],
    });
    const kubeconfig = cp.kubeconfigFor('admin', { groups: ['system:masters'] });
    const result = await sriovDra(...['orphans', '--node-name', 'worker-1', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig]);
    expect(result).toEqual({
      code: 0,
      stdout: `NAMESPACE     NAME${' '.repeat(orphan.metadata.name.length - 4)}  REASON                PROTECTED  TERMINATING\n${NS}  ${orphan.metadata.name}  no-checkpoint-record  yes        no\n`,
      stderr: '',
    });
    const json = await sriovDra(...['orphans', '--node-name', 'worker-1', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({
      node: 'worker-1',
      orphans: [
        {
          namespace: NS,
          name: orphan.metadata.name,
          uid: orphan.metadata.uid,
          protectedByFinalizer: true,
          terminating: false,
          reason: 'no-checkpoint-record',
          podUID: POD.uid,
          claimUID: CLAIM_UID,
          attachmentID: 'b'.repeat(64),
        },
      ],
    });
    const wide = await sriovDra(...['orphans', '--node-name', 'worker-1', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig, '-o', 'wide']);
    expect(wide.stdout.split('\n')[1]).toMatch(new RegExp(` +${POD.uid} +${CLAIM_UID} +-$`));
    const elsewhere = await sriovDra(...['orphans', '--node-name', 'worker-1', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig, '-n', 'default']);
    expect(elsewhere.stdout).toBe('no orphaned shadows on node worker-1\n');
    const after = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: orphan.metadata.name });
    expect(after.metadata.resourceVersion).toBe(orphan.metadata.resourceVersion);
  }, 60_000);

  it('refuses an unknown node with its typed error, and a command line without --node-name', async () => {
    const kubeconfig = cp.kubeconfigFor('admin', { groups: ['system:masters'] });
    const missing = await sriovDra(...['orphans', '--node-name', 'worker-9', '--plugins-dir', pluginsDir, '--kubeconfig', kubeconfig]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('ApiNotFound')]);
    const usage = await sriovDra(...['orphans']);
    expect([usage.code, usage.stderr]).toEqual([1, 'error: InvalidCommandLine: --node-name is required — see sriov-dra orphans --help\n']);
  }, 60_000);
});
