import { describe, expect, it } from '@jest/globals';
import { mergeManagedSelections } from '@sriov-dra/cni-render';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations } from '@sriov-dra/contract';
import type { Pod, ResourceClaim } from '@sriov-dra/k8s';
import type { ClaimRecord, ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { planManagedBindings } from './binding-plan.ts';
import { managedSelectionFor } from './managed-selection.ts';
import { type RepairObservation, isHealthy, repairStop } from './repair-check.ts';
import type { ShadowObject } from './shadow-verification.ts';

const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';
const POD_UID = '5f0c7a52-1111-4c2e-8d3b-7a6b5c4d3e2f';
const CLAIM_UID = '0b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e01';
const context = { nodeName: 'worker-1', driverName: DRIVER };

// Only the fields repairStop reads; the checkpoint schema is exercised elsewhere.
const record = {
  claimUID: CLAIM_UID,
  pod: { uid: POD_UID, namespace: 'ai', name: 'trainer-0' },
  devices: [
    { pool: 'worker-1', device: '0000-3b-00-2' },
    { pool: 'worker-1', device: '0000-3b-00-3' },
  ],
} as unknown as ClaimRecord;

const pod = (changes: { uid?: string; deletionTimestamp?: string; nodeName?: string } = {}): Pod => ({
  metadata: {
    name: 'trainer-0',
    namespace: 'ai',
    uid: changes.uid ?? POD_UID,
    resourceVersion: '7',
    ...(changes.deletionTimestamp === undefined ? {} : { deletionTimestamp: changes.deletionTimestamp }),
  },
  spec: { nodeName: changes.nodeName ?? 'worker-1' },
});

const result = (device: string, driver = DRIVER) => ({ request: 'nics', driver, pool: 'worker-1', device });

const claim = (changes: { uid?: string; reservedFor?: string[]; results?: ReturnType<typeof result>[] } = {}): ResourceClaim => ({
  metadata: { name: 'nics', namespace: 'ai', uid: changes.uid ?? CLAIM_UID, resourceVersion: '9' },
  status: {
    allocation: { devices: { results: changes.results ?? [result('0000-3b-00-3'), result('gpu-0', 'gpu.nvidia.com'), result('0000-3b-00-2')] } },
    reservedFor: (changes.reservedFor ?? [POD_UID]).map((uid) => ({ resource: 'pods', name: 'trainer-0', uid })),
  },
});

const observed = (changes: Partial<RepairObservation> = {}): RepairObservation => ({ pod: pod(), claim: claim(), nodeUnchanged: true, ...changes });

describe('repairStop', () => {
  it('lets a claim whose Pod, reservation, allocation (in any order, other drivers aside) and Node all match be repaired', () => {
    expect(repairStop(record, observed(), context)).toBeUndefined();
  });

  it.each([
    ['the Node was replaced', observed({ nodeUnchanged: false }), 'NodeReplaced'],
    ['the Pod is gone', observed({ pod: undefined }), 'PodGone'],
    ['another Pod has the name', observed({ pod: pod({ uid: '9e0c7a52-1111-4c2e-8d3b-7a6b5c4d3e2f' }) }), 'PodReplaced'],
    ['the Pod is terminating', observed({ pod: pod({ deletionTimestamp: '2026-11-30T18:00:00Z' }) }), 'PodTerminating'],
    ['the Pod is bound elsewhere', observed({ pod: pod({ nodeName: 'worker-2' }) }), 'PodMoved'],
    ['the claim is gone', observed({ claim: undefined }), 'ClaimGone'],
    ['another claim has the name', observed({ claim: claim({ uid: '1b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e01' }) }), 'ClaimReplaced'],
    ['the reservation names another Pod', observed({ claim: claim({ reservedFor: ['9e0c7a52-1111-4c2e-8d3b-7a6b5c4d3e2f'] }) }), 'ReservationChanged'],
    ['the allocation lost a device', observed({ claim: claim({ results: [result('0000-3b-00-2')] }) }), 'AllocationChanged'],
    ['the allocation names another device', observed({ claim: claim({ results: [result('0000-3b-00-2'), result('0000-3b-00-4')] }) }), 'AllocationChanged'],
    [
      'the allocation gained a device',
      observed({ claim: claim({ results: [result('0000-3b-00-2'), result('0000-3b-00-3'), result('0000-3b-00-4')] }) }),
      'AllocationChanged',
    ],
  ] as const)('stops when %s', (_case, observation, reason) => {
    expect(repairStop(record, observation, context)).toBe(reason);
  });

  it('stops when the claim has no status, or a reservation but no allocation', () => {
    const bare: ResourceClaim = { metadata: claim().metadata };
    expect(repairStop(record, observed({ claim: bare }), context)).toBe('ReservationChanged');
    const unallocated: ResourceClaim = { ...claim(), status: { reservedFor: claim().status?.reservedFor } };
    expect(repairStop(record, observed({ claim: unallocated }), context)).toBe('AllocationChanged');
    const noDevices: ResourceClaim = { ...claim(), status: { ...claim().status, allocation: {} } };
    expect(repairStop(record, observed({ claim: noDevices }), context)).toBe('AllocationChanged');
  });

  it('stops when the reservation names the Pod UID under another resource', () => {
    const notAPod: ResourceClaim = { ...claim(), status: { ...claim().status, reservedFor: [{ resource: 'nodes', name: 'worker-1', uid: POD_UID }] } };
    expect(repairStop(record, observed({ claim: notAPod }), context)).toBe('ReservationChanged');
  });
});

describe('isHealthy', () => {
  const NODE = { name: 'worker-1', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
  const POD = { namespace: 'ai', name: 'trainer-0', uid: POD_UID };
  const SHADOW_UID = '0c6f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f';

  /** A claim Ready with one VF, its shadow as the API server holds it, and the Pod as the forward sequence left it. */
  function prepared(): { record: ClaimRecord; shadows: Map<string, ShadowObject>; pod: Pod } {
    const plan = planManagedBindings({
      node: NODE,
      pod: POD,
      allocations: [
        {
          claim: { uid: CLAIM_UID, namespace: 'ai', name: 'trainer-0-nics', aliases: ['nics'] },
          request: 'nics',
          driver: DRIVER,
          pool: 'worker-1',
          device: '0000-3b-00-2',
          pciAddress: '0000:3b:00.2',
          ifName: '',
          source: {
            namespace: 'ai',
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
    const binding: ManagedBinding = { ...first.binding, phase: 'Ready', shadow: { ...first.binding.shadow, uid: SHADOW_UID } };
    const created = first.shadowNad as unknown as ShadowObject;
    const live: ShadowObject = {
      ...created,
      metadata: { ...created.metadata, uid: SHADOW_UID, resourceVersion: '12', finalizers: [ATTACHMENT_PROTECTION_FINALIZER] },
    };
    const merged = mergeManagedSelections({ pod: { ...POD, annotations: {} }, desired: [managedSelectionFor(binding, SHADOW_UID)], releasedClaims: [] });
    if (!merged.ok || merged.value.networks === null || merged.value.registry === null) throw new Error('no selections');
    return {
      record: { claimUID: CLAIM_UID, devices: [{ pool: 'worker-1', device: '0000-3b-00-2', managedBinding: binding }] } as unknown as ClaimRecord,
      shadows: new Map([[`${binding.shadow.namespace}/${binding.shadow.name}`, live]]),
      pod: {
        ...pod(),
        metadata: { ...pod().metadata, annotations: { [annotations.networks]: merged.value.networks, [annotations.managedNetworks]: merged.value.registry } },
      },
    };
  }

  const bindingOf = (record: ClaimRecord): ManagedBinding => {
    const binding = record.devices[0]?.managedBinding;
    if (binding === undefined) throw new Error('fixture');
    return binding;
  };
  const withBinding = (record: ClaimRecord, change: Partial<ManagedBinding>): ClaimRecord =>
    ({ ...record, devices: [{ ...record.devices[0], managedBinding: { ...bindingOf(record), ...change } }] }) as ClaimRecord;
  const withShadow = (shadows: Map<string, ShadowObject>, change: (shadow: ShadowObject) => ShadowObject): Map<string, ShadowObject> =>
    new Map([...shadows].map(([key, shadow]) => [key, change(shadow)]));

  it('needs no forward work when the binding is Ready, its shadow exact and protected, and the Pod carries its selection', () => {
    const { record, shadows, pod: live } = prepared();
    expect(isHealthy([record], live, shadows)).toBe(true);
  });

  it('needs work for a Pending binding', () => {
    const { record, shadows, pod: live } = prepared();
    expect(isHealthy([withBinding(record, { phase: 'Pending' })], live, shadows)).toBe(false);
  });

  it('needs work when the shadow is missing or was replaced', () => {
    const { record, shadows, pod: live } = prepared();
    expect(isHealthy([record], live, new Map())).toBe(false);
    expect(
      isHealthy(
        [record],
        live,
        withShadow(shadows, (shadow) => ({ ...shadow, metadata: { ...shadow.metadata, uid: '1d7a6e1f-2b8c-4d4e-9f0a-1b2c3d4e5f60' } })),
      ),
    ).toBe(false);
  });

  it('needs work when the shadow was edited or lost its finalizer', () => {
    const { record, shadows, pod: live } = prepared();
    expect(
      isHealthy(
        [record],
        live,
        withShadow(shadows, (shadow) => ({ ...shadow, spec: { config: '{}' } })),
      ),
    ).toBe(false);
    expect(
      isHealthy(
        [record],
        live,
        withShadow(shadows, (shadow) => ({ ...shadow, metadata: { ...shadow.metadata, finalizers: [] } })),
      ),
    ).toBe(false);
  });

  it('needs work when the record cannot rebuild its shadow', () => {
    const { record, shadows, pod: live } = prepared();
    expect(isHealthy([withBinding(record, { renderedConfig: '{"cniVersion":"1.0.0","type":"sriov"}' })], live, shadows)).toBe(false);
  });

  it('needs work when the Pod lacks its selection', () => {
    const { record, shadows } = prepared();
    expect(isHealthy([record], pod(), shadows)).toBe(false);
  });

  it('checks no shadow of a claim whose release is complete and whose selection is gone', () => {
    const { record, shadows, pod: live } = prepared();
    const released = withBinding(
      { ...record, claimUID: '1b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e01' },
      { phase: 'ReleaseComplete', claimUID: '1b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e01', attachmentID: 'b'.repeat(64) },
    );
    expect(isHealthy([record, released], live, shadows)).toBe(true);
  });

  it('needs work when a released claim still has its selection on the Pod, and checks no shadow of it', () => {
    const { record, pod: live } = prepared();
    expect(isHealthy([withBinding(record, { phase: 'Deleting' })], live, new Map())).toBe(false);
  });
});
