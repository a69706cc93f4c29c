import { describe, expect, it } from '@jest/globals';
import type { Pod, ResourceClaim } from '@sriov-dra/k8s';
import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';
import { type RepairObservation, repairStop } from './repair-check.ts';

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
});
