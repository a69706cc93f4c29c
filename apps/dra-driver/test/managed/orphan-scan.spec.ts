// The orphan scan against a real API server: this node's shadows found in any namespace by their labels,
// matched to the checkpoint by full identity, reported and never touched; other nodes' shadows ignored.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, MANAGED_BY_VALUE, annotations, labels, serializeBindingAnnotation, shadowNameFor } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type CheckpointedBinding, findOrphans, listNodeShadows } from '../../src/managed/orphan-scan.ts';

const NODE_UID = '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40';
const OTHER_NODE_UID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const POD_UID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const CLAIM_UID = '7b0f3b5e-2f4c-4d8a-9e61-0c1d2e3f4a5b';

let cp: ControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  for (const ns of ['team-a', 'team-b']) await createNamespace(admin, ns);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

async function shadow(namespace: string, digit: string, nodeUID = NODE_UID, podUID = POD_UID): Promise<KubeObject> {
  const attachmentID = digit.repeat(64);
  const binding = serializeBindingAnnotation({
    version: 1,
    attachmentID,
    podUID,
    claimUID: CLAIM_UID,
    nodeName: 'worker-1',
    nodeUID,
    source: { namespace, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' },
    pciAddress: '0000:3b:00.2',
    interface: 'net1',
    configSHA256: 'f'.repeat(64),
  });
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: shadowNameFor(attachmentID),
        namespace,
        labels: { [labels.managedBy]: MANAGED_BY_VALUE, [labels.podUID]: podUID, [labels.claimUID]: CLAIM_UID, [labels.nodeUID]: nodeUID },
        annotations: { [annotations.binding]: binding },
        finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
      },
      spec: { config: '{"cniVersion":"1.0.0","name":"x","type":"sriov","deviceID":"0000:3b:00.2"}' },
    },
    { namespace },
  );
}

describe('orphan scan', () => {
  it('reports this node’s unaccounted shadows in any namespace, by full identity, and changes nothing', async () => {
    const accounted = await shadow('team-a', 'a');
    const lost = await shadow('team-b', 'b');
    const replaced = await shadow('team-b', 'c', NODE_UID, '11111111-2222-4333-8444-555555555555');
    await shadow('team-a', 'd', OTHER_NODE_UID);
    const checkpoint: CheckpointedBinding[] = [
      {
        attachmentID: 'a'.repeat(64),
        claimUID: CLAIM_UID,
        podUID: POD_UID,
        shadow: { namespace: 'team-a', name: accounted.metadata.name, uid: accounted.metadata.uid },
      },
      // The checkpoint names attachment c for another Pod: the object's own binding disagrees.
      { attachmentID: 'c'.repeat(64), claimUID: CLAIM_UID, podUID: POD_UID, shadow: { namespace: 'team-b', name: replaced.metadata.name, uid: '' } },
    ];
    const listed = await listNodeShadows(admin, NODE_UID);
    expect(listed.map((object) => object.metadata.name).sort()).toEqual([accounted, lost, replaced].map((object) => object.metadata.name).sort());
    const orphans = findOrphans(listed, checkpoint, NODE_UID);
    expect(
      orphans.map(({ name, reason, protectedByFinalizer }) => ({ name, reason, protectedByFinalizer })).sort((x, y) => x.name.localeCompare(y.name)),
    ).toEqual([
      { name: lost.metadata.name, reason: 'no-checkpoint-record', protectedByFinalizer: true },
      { name: replaced.metadata.name, reason: 'identity-mismatch', protectedByFinalizer: true },
    ]);
    const after = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: 'team-b', name: lost.metadata.name });
    expect(after.metadata.resourceVersion).toBe(lost.metadata.resourceVersion);
  }, 30_000);

  it('reports a managed object whose binding annotation cannot be read', () => {
    const object: KubeObject = {
      metadata: {
        name: 'sriov-dra-x',
        namespace: 'team-a',
        uid: '22222222-3333-4444-8555-666666666666',
        resourceVersion: '1',
        labels: { [labels.managedBy]: MANAGED_BY_VALUE, [labels.nodeUID]: NODE_UID },
        annotations: { [annotations.binding]: '{"version":2}' },
      },
    };
    expect(findOrphans([object], [], NODE_UID)).toEqual([
      { namespace: 'team-a', name: 'sriov-dra-x', uid: object.metadata.uid, protectedByFinalizer: false, terminating: false, reason: 'unreadable-binding' },
    ]);
    expect(findOrphans([object], [], OTHER_NODE_UID)).toEqual([]);
  });
});
