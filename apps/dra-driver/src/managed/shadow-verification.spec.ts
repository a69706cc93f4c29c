import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER } from '@sriov-dra/contract';
import { type DesiredShadow, type ShadowObject, verifyShadow } from './shadow-verification.ts';

const POD_UID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const desired: DesiredShadow = {
  metadata: {
    name: 'sriov-dra-shadow-x',
    namespace: 'ai',
    labels: { 'sriovnetwork.k8snetworkplumbingwg.io/managed-by': 'x', 'sriovnetwork.k8snetworkplumbingwg.io/pod-uid': POD_UID },
    annotations: { 'sriovnetwork.k8snetworkplumbingwg.io/binding': '{"version":1}' },
    ownerReferences: [{ kind: 'Pod', name: 'p', uid: POD_UID }],
  },
  spec: { config: '{"type":"sriov"}' },
};

function found(change: { metadata?: Partial<ShadowObject['metadata']>; spec?: { config: string } } = {}): ShadowObject {
  return {
    metadata: {
      name: desired.metadata.name,
      namespace: 'ai',
      uid: '11111111-2222-4333-8444-555555555555',
      resourceVersion: '7',
      labels: { ...desired.metadata.labels },
      annotations: { ...desired.metadata.annotations },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: POD_UID, blockOwnerDeletion: false }],
      finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
      ...change.metadata,
    },
    spec: change.spec ?? { config: desired.spec.config },
  };
}

describe('verifyShadow', () => {
  it('adopts an exact shadow, and asks for the finalizer back when only that is missing', () => {
    expect(verifyShadow(found(), desired)).toEqual({ ok: true, value: 'none' });
    expect(verifyShadow(found({ metadata: { finalizers: ['example.com/other'] } }), desired)).toEqual({ ok: true, value: 'restore-finalizer' });
  });

  it.each([
    [
      'another binding annotation',
      { metadata: { annotations: { 'sriovnetwork.k8snetworkplumbingwg.io/binding': '{"version":1,"x":1}' } } },
      'annotation differs',
    ],
    [
      'a missing label',
      { metadata: { labels: { 'sriovnetwork.k8snetworkplumbingwg.io/managed-by': 'x' } } },
      'label sriovnetwork.k8snetworkplumbingwg.io/pod-uid is null',
    ],
    [
      'a label of another Pod',
      { metadata: { labels: { ...desired.metadata.labels, 'sriovnetwork.k8snetworkplumbingwg.io/pod-uid': 'other' } } },
      'pod-uid is "other"',
    ],
    ['no owner reference to the Pod', { metadata: { ownerReferences: [] } }, `no owner reference to Pod UID ${POD_UID}`],
    [
      'an owner reference to another Pod beside the Pod’s',
      {
        metadata: {
          ownerReferences: [
            { kind: 'Pod', uid: POD_UID },
            { kind: 'Pod', uid: 'other' },
          ],
        },
      },
      `owner reference to Pod UID other, not ${POD_UID}`,
    ],
    ['an owner of another kind with the UID', { metadata: { ownerReferences: [{ kind: 'ReplicaSet', uid: POD_UID }] } }, 'no owner reference'],
    ['a blocking owner reference', { metadata: { ownerReferences: [{ kind: 'Pod', uid: POD_UID, blockOwnerDeletion: true }] } }, 'blocks owner deletion'],
    ['other config bytes', { spec: { config: '{"type": "sriov"}' } }, 'spec.config differs'],
  ])('refuses %s as ShadowConflict', (_case, change, message) => {
    const verdict = verifyShadow(found(change), desired);
    expect(verdict.ok ? verdict : verdict.error).toMatchObject({ code: 'ShadowConflict', message: expect.stringContaining(message) });
  });

  it('reports a shadow being deleted as ShadowDeletionPending, before anything else', () => {
    const verdict = verifyShadow(found({ metadata: { deletionTimestamp: '2026-11-30T10:00:00Z', annotations: {} } }), desired);
    expect(verdict.ok ? verdict : verdict.error.code).toBe('ShadowDeletionPending');
  });
});

describe('verifyShadow: what a refusal names', () => {
  const object = { kind: 'NetworkAttachmentDefinition', namespace: 'ai', name: desired.metadata.name, uid: '11111111-2222-4333-8444-555555555555' };

  it('names the object under the shadow’s name and says it is left alone', () => {
    const verdict = verifyShadow(found({ spec: { config: '{}' } }), desired);
    expect(verdict.ok ? verdict : [verdict.error.detail, verdict.error.object]).toEqual([
      "its spec.config differs from the rendered configuration; the object under the shadow's name is not this binding's shadow and is left as it is",
      object,
    ]);
  });

  it('says since when a shadow is being deleted', () => {
    const verdict = verifyShadow(found({ metadata: { deletionTimestamp: '2026-11-30T10:00:00Z' } }), desired);
    expect(verdict.ok ? verdict : [verdict.error.detail, verdict.error.object]).toEqual([
      'the shadow is being deleted (since 2026-11-30T10:00:00Z); it is not recreated while it exists',
      object,
    ]);
  });

  it.each([
    ['without annotations', { metadata: { annotations: undefined } }, 'annotation differs'],
    ['without labels', { metadata: { labels: undefined } }, 'label sriovnetwork.k8snetworkplumbingwg.io/managed-by is null'],
    ['without owner references', { metadata: { ownerReferences: undefined } }, `no owner reference to Pod UID ${POD_UID}`],
  ])('refuses an object %s', (_case, change, message) => {
    const verdict = verifyShadow(found(change), desired);
    expect(verdict.ok ? verdict : verdict.error.code).toBe('ShadowConflict');
    expect(verdict.ok ? '' : verdict.error.detail).toContain(message);
  });

  it('refuses an object without a spec', () => {
    const verdict = verifyShadow({ metadata: found().metadata }, desired);
    expect(verdict.ok ? '' : verdict.error.detail).toContain('spec.config differs');
  });
});
