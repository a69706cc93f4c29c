import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER } from '@sriov-dra/contract';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { planManagedBindings } from './binding-plan.ts';
import { ownedShadow } from './owned-shadow.ts';
import type { ShadowObject } from './shadow-verification.ts';

const NODE = { name: 'worker-a', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
const POD = { namespace: 'ai-workloads', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555' };
const OTHER_POD_UID = '99999999-8888-4777-8666-555555555555';
const CLAIM = { uid: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607', namespace: 'ai-workloads', name: 'trainer-0-nics', aliases: ['nics'] };
const SHADOW_UID = '0c6f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f';
const REPLACEMENT_UID = '1d7a6e1f-2b8c-4d4e-9f0a-1b2c3d4e5f60';

/** A binding Ready with its shadow's UID recorded, and that shadow as the API server holds it. */
function recorded(): { binding: ManagedBinding; live: ShadowObject } {
  const plan = planManagedBindings({
    node: NODE,
    pod: POD,
    allocations: [
      {
        claim: CLAIM,
        request: 'nics',
        driver: 'sriovnetwork.k8snetworkplumbingwg.io',
        pool: 'worker-a',
        device: '0000-03-00-1',
        pciAddress: '0000:03:00.1',
        ifName: '',
        source: {
          namespace: 'ai-workloads',
          name: 'rail-a-net',
          uid: '5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93',
          resourceVersion: '4711',
          config: '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}',
        },
      },
    ],
  });
  if (!plan.ok) throw plan.error;
  const [first] = plan.value.bindings;
  if (first === undefined) throw new Error('no binding planned');
  const created = first.shadowNad as unknown as ShadowObject;
  return {
    binding: { ...first.binding, phase: 'Deleting', shadow: { ...first.binding.shadow, uid: SHADOW_UID } },
    live: { ...created, metadata: { ...created.metadata, uid: SHADOW_UID, resourceVersion: '12', finalizers: [ATTACHMENT_PROTECTION_FINALIZER] } },
  };
}

const withMetadata = (live: ShadowObject, change: Partial<ShadowObject['metadata']>): ShadowObject => ({ ...live, metadata: { ...live.metadata, ...change } });

describe('ownedShadow', () => {
  it('owns the recorded shadow, deleting or not, with or without its Pod owner reference', () => {
    const { binding, live } = recorded();
    const owned = { namespace: POD.namespace, name: binding.shadow.name, uid: SHADOW_UID };
    expect(ownedShadow(binding, live)).toEqual({ ok: true, value: owned });
    expect(ownedShadow(binding, withMetadata(live, { deletionTimestamp: '2026-12-01T10:00:00Z' }))).toEqual({ ok: true, value: owned });
    expect(ownedShadow(binding, withMetadata(live, { ownerReferences: [] }))).toEqual({ ok: true, value: owned });
  });

  it('adopts the UID of an exact shadow when a lost Create response left none recorded', () => {
    const { binding, live } = recorded();
    const unrecorded = { ...binding, shadow: { ...binding.shadow, uid: '' } };
    expect(ownedShadow(unrecorded, live)).toEqual({ ok: true, value: { namespace: POD.namespace, name: binding.shadow.name, uid: SHADOW_UID } });
  });

  it.each([
    ['a replacement UID', (live: ShadowObject) => withMetadata(live, { uid: REPLACEMENT_UID }), `its UID is not ${SHADOW_UID}`],
    [
      'an owner reference to another Pod',
      (live: ShadowObject) =>
        withMetadata(live, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: OTHER_POD_UID, blockOwnerDeletion: false }] }),
      `owner reference to Pod UID ${OTHER_POD_UID}`,
    ],
    ['edited config bytes', (live: ShadowObject) => ({ ...live, spec: { config: '{"cniVersion":"1.0.0","type":"sriov"}' } }), 'spec.config differs'],
    [
      'another config hash in its binding annotation',
      (live: ShadowObject) =>
        withMetadata(live, {
          annotations: Object.fromEntries(
            Object.entries(live.metadata.annotations ?? {}).map(([key, value]) => [
              key,
              value.replace(/"configSHA256":"[0-9a-f]{64}"/, `"configSHA256":"${'0'.repeat(64)}"`),
            ]),
          ),
        }),
      'annotation differs',
    ],
  ])('refuses %s as ShadowConflict naming the object, with a remedy that keeps the record', (_case, change, difference) => {
    const { binding, live } = recorded();
    const changed = change(live);
    const verdict = ownedShadow(binding, changed);
    expect(verdict.ok ? verdict : verdict.error).toMatchObject({
      code: 'ShadowConflict',
      object: { kind: 'NetworkAttachmentDefinition', namespace: POD.namespace, name: binding.shadow.name, uid: changed.metadata.uid },
      detail: expect.stringContaining(difference),
      remedy: expect.stringContaining(`the release of claim ${CLAIM.namespace}/${CLAIM.name} waits, its checkpoint record kept`),
    });
  });

  it('refuses an object with other content also when no UID was recorded', () => {
    const { binding, live } = recorded();
    const verdict = ownedShadow({ ...binding, shadow: { ...binding.shadow, uid: '' } }, { ...live, spec: { config: '{}' } });
    expect(verdict.ok ? verdict : verdict.error.code).toBe('ShadowConflict');
  });
});

describe('ownedShadow: the remedy of a conflict', () => {
  it('says how to find the difference, how to put it back, and not to force the release', () => {
    const { binding, live } = recorded();
    const verdict = ownedShadow(binding, { ...live, spec: { config: '{}' } });
    const remedy = verdict.ok ? '' : verdict.error.remedy;
    expect(remedy).toContain(`\`sriov-dra orphans --node-name ${NODE.name}\` lists this node's shadows no record accounts for, and why`);
    expect(remedy).toContain('put back what differs (a Pod owner reference may be removed, not changed)');
    expect(remedy).toMatch(/Do not remove the protection finalizer to force the release$/);
  });

  it('passes on a record that cannot rebuild its shadow', () => {
    const { binding, live } = recorded();
    const verdict = ownedShadow({ ...binding, pciAddress: '0000:03:00.2' }, live);
    expect(verdict.ok ? verdict : verdict.error.code).toBe('CheckpointCorrupt');
  });
});
