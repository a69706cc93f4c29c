import { describe, expect, it } from '@jest/globals';
import { CLAIM_UID, NAMESPACE, POD, POD_UID, claimOf, podConsumer, rejectionOf } from '../../test/consumer-fixtures.ts';
import { reservedPodOf } from './claim-reservation.ts';

describe('reservedPodOf', () => {
  it('names the one reserved Pod in the claim namespace', () => {
    expect(reservedPodOf(claimOf())).toEqual({ ok: true, value: { namespace: NAMESPACE, name: POD, uid: POD_UID } });
  });

  it('refuses an unallocated claim before looking at its reservation', () => {
    const error = rejectionOf(reservedPodOf(claimOf({ results: null, reservedFor: [] })));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.object).toEqual({ kind: 'ResourceClaim', namespace: NAMESPACE, name: 'nics', uid: CLAIM_UID, field: 'status.allocation' });
    expect(error.detail).toBe('the claim is not allocated');
    expect(error.remedy).toBe('the kubelet prepares a claim only after the scheduler allocated it; it retries once status.allocation is written');
  });

  it.each<[string, readonly Record<string, unknown>[], RegExp]>([
    ['no consumer', [], /status\.reservedFor is empty/],
    ['two Pods', [podConsumer(), podConsumer('trainer-1', 'a1b2c3d4-0000-4000-8000-000000000001')], /holds 2 consumers \(pods trainer-0, pods trainer-1\)/],
    ['a Pod and a Node', [podConsumer(), { resource: 'nodes', name: 'worker-a', uid: 'u' }], /holds 2 consumers/],
    ['a Node', [{ resource: 'nodes', name: 'worker-a', uid: 'u' }], /reserved for nodes worker-a, not for a Pod/],
    [
      'a PodGroup',
      [{ apiGroup: 'scheduling.k8s.io', resource: 'podgroups', name: 'gang', uid: 'u' }],
      /reserved for podgroups\.scheduling\.k8s\.io gang, not for a Pod/,
    ],
    ['pods of another API group', [{ apiGroup: 'example.com', resource: 'pods', name: POD, uid: POD_UID }], /reserved for pods\.example\.com trainer-0, not/],
    ['an unknown kind', [{ apiGroup: 'example.com', resource: 'widgets', name: 'w', uid: 'u' }], /widgets\.example\.com w, not for a Pod/],
    ['an entry without a resource', [{ name: POD, uid: POD_UID }], /reserved for <no resource> trainer-0, not for a Pod/],
    ['a Pod without a UID', [{ resource: 'pods', name: POD }], /pods trainer-0 lacks a UID/],
    ['a Pod with an empty UID', [{ resource: 'pods', name: POD, uid: '' }], /lacks a UID/],
    ['a Pod without a name', [{ resource: 'pods', uid: POD_UID }], /pods <no name> lacks a name/],
  ])('refuses a reservation for %s as InvalidClaimReservation', (_, reservedFor, detail) => {
    const error = rejectionOf(reservedPodOf(claimOf({ reservedFor })));
    expect(error.code).toBe('InvalidClaimReservation');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject({ kind: 'ResourceClaim', name: 'nics', field: 'status.reservedFor' });
    expect(error.remedy).toMatch(/\S/);
  });
});
