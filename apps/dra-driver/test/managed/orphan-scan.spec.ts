// The orphan scan against a real API server: this node's shadows found in any namespace by their labels,
// matched to the checkpoint by full identity and content, reported and never touched; other nodes'
// shadows ignored.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { renderShadowConfig } from '@sriov-dra/cni-render';
import { ATTACHMENT_PROTECTION_FINALIZER, DRIVER_NAME, MANAGED_BY_VALUE, annotations, labels, shadowNameFor } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { ManagedBinding } from '../../src/checkpoint/checkpoint-record.ts';
import { findOrphans, listNodeShadows } from '../../src/managed/orphan-scan.ts';
import { recordedShadow } from '../../src/managed/recorded-shadow.ts';

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

/** A binding as the checkpoint records it: attachment `digit` × 64 of the Pod, on the given node. */
function recordedBinding(namespace: string, digit: string, nodeUID = NODE_UID, podUID = POD_UID): ManagedBinding {
  const source = { namespace, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' };
  const rendered = renderShadowConfig({ metadata: source, spec: { config: '{"cniVersion":"1.0.0","name":"x","type":"sriov"}' } }, '0000:3b:00.2');
  if (!rendered.ok) throw rendered.error;
  const attachmentID = digit.repeat(64);
  return {
    bindingVersion: 1,
    phase: 'Ready',
    attachmentID,
    podUID,
    podNamespace: namespace,
    podName: 'trainer-0',
    claimUID: CLAIM_UID,
    claimNamespace: namespace,
    claimName: 'nics',
    nodeName: 'worker-1',
    nodeUID,
    driver: DRIVER_NAME,
    pool: 'worker-1',
    device: '0000-3b-00-2',
    requestNames: ['nics'],
    pciAddress: '0000:3b:00.2',
    interface: 'net1',
    source,
    shadow: { namespace, name: shadowNameFor(attachmentID), uid: '' },
    renderedConfig: rendered.value.bytes,
    configSHA256: rendered.value.sha256,
  };
}

/** The shadow the driver creates for `binding`, protected; `config` replaces its bytes as a hand edit would. */
async function shadow(binding: ManagedBinding, config?: string): Promise<KubeObject> {
  const desired = recordedShadow(binding);
  if (!desired.ok) throw desired.error;
  const { metadata, spec } = desired.value;
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { ...metadata, finalizers: [ATTACHMENT_PROTECTION_FINALIZER] },
      spec: { config: config ?? spec.config },
    },
    { namespace: metadata.namespace },
  );
}

const withUID = (binding: ManagedBinding, uid: string): ManagedBinding => ({ ...binding, shadow: { ...binding.shadow, uid } });

describe('orphan scan', () => {
  it('reports this node’s unaccounted shadows in any namespace, by full identity and content, and changes nothing', async () => {
    const accounted = recordedBinding('team-a', 'a');
    const accountedShadow = await shadow(accounted);
    const lost = await shadow(recordedBinding('team-b', 'b'));
    // The checkpoint names attachment c for another Pod: the object's own binding disagrees.
    const replaced = await shadow(recordedBinding('team-b', 'c', NODE_UID, '11111111-2222-4333-8444-555555555555'));
    const edited = recordedBinding('team-a', 'e');
    const editedShadow = await shadow(edited, '{"cniVersion":"1.0.0","name":"x","type":"sriov","deviceID":"0000:3b:00.7"}');
    await shadow(recordedBinding('team-a', 'd', OTHER_NODE_UID));
    const checkpoint = [
      withUID(accounted, accountedShadow.metadata.uid),
      recordedBinding('team-b', 'c'),
      // A lost Create response left no UID: the object under its name is still checked against the record.
      edited,
    ];
    const listed = await listNodeShadows(admin, NODE_UID);
    expect(listed.map((object) => object.metadata.name).sort()).toEqual(
      [accountedShadow, lost, replaced, editedShadow].map((object) => object.metadata.name).sort(),
    );
    const orphans = findOrphans(listed, checkpoint, NODE_UID);
    expect(
      orphans
        .map(({ name, reason, protectedByFinalizer, difference }) => ({ name, reason, protectedByFinalizer, difference }))
        .sort((x, y) => x.name.localeCompare(y.name)),
    ).toEqual(
      [
        { name: lost.metadata.name, reason: 'no-checkpoint-record', protectedByFinalizer: true, difference: undefined },
        { name: replaced.metadata.name, reason: 'identity-mismatch', protectedByFinalizer: true, difference: undefined },
        {
          name: editedShadow.metadata.name,
          reason: 'content-mismatch',
          protectedByFinalizer: true,
          difference: `its spec.config differs from the rendered configuration; the object under the shadow's name is not this binding's shadow and is left as it is (attachment ${'e'.repeat(64)})`,
        },
      ].sort((x, y) => x.name.localeCompare(y.name)),
    );
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
