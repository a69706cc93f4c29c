import { describe, expect, it } from '@jest/globals';
import { CLAIM_UID, NODE, POD_UID, apiClaim, apiPod, podConsumer, rejectionOf } from '../../test/consumer-fixtures.ts';
import { recheckConsumer } from './consumer-recheck.ts';

const VERIFIED = { claimUID: CLAIM_UID, podUID: POD_UID, nodeName: NODE };
const OTHER_UID = '99999999-0000-4000-8000-000000000000';

describe('recheckConsumer', () => {
  it('accepts the claim still reserved for the same Pod, still on this node', () => {
    expect(recheckConsumer(apiClaim(), apiPod(), VERIFIED, 'prepare')).toEqual({ ok: true, value: undefined });
  });

  it('lets a retry go on for a Pod that started terminating, which a first prepare refuses', () => {
    const terminating = apiPod({ deletionTimestamp: '2026-12-01T12:00:00Z' });
    expect(recheckConsumer(apiClaim(), terminating, VERIFIED, 'retry').ok).toBe(true);
    const refused = rejectionOf(recheckConsumer(apiClaim(), terminating, VERIFIED, 'prepare'));
    expect([refused.code, refused.object?.field]).toEqual(['PodNotEligible', 'metadata.deletionTimestamp']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown> | undefined, string, RegExp]>([
    ['a claim replaced under its name', apiClaim({ uid: OTHER_UID }), apiPod(), 'ObjectReplaced', /now UID 99999999-.*, not UID c1a2b3c4-/],
    [
      'a claim reserved for another Pod',
      apiClaim({ reservedFor: [podConsumer('trainer-1', OTHER_UID)] }),
      apiPod(),
      'ConsumerMismatch',
      /now reserved for Pod workloads\/trainer-1 \(99999999-.*\), not Pod UID 5f1c2d3e-/,
    ],
    ['a claim no longer reserved', apiClaim({ reservedFor: [] }), apiPod(), 'InvalidClaimReservation', /reserved for no consumer/],
    ['a claim no longer allocated', apiClaim({ results: null }), apiPod(), 'InvalidApiObject', /not allocated/],
    ['a Pod that is gone', apiClaim(), undefined, 'ConsumerMismatch', /does not exist/],
    ['a Pod replaced under its name', apiClaim(), apiPod({ uid: OTHER_UID }), 'ConsumerMismatch', /was replaced under the same name/],
    ['a Pod on another node', apiClaim(), apiPod({ nodeName: 'worker-b' }), 'ConsumerMismatch', /bound to node worker-b/],
  ])('refuses %s', (_, claim, pod, code, detail) => {
    const error = rejectionOf(recheckConsumer(claim, pod, VERIFIED, 'retry'));
    expect([error.code, error.detail]).toEqual([code, expect.stringMatching(detail)]);
  });
});

describe('recheckConsumer: what a refusal names', () => {
  it('names the claim the prepare was for when the live claim cannot be read', () => {
    const error = rejectionOf(recheckConsumer({ metadata: {} }, apiPod(), VERIFIED, 'retry'));
    expect(error.object).toMatchObject({ kind: 'ResourceClaim', uid: CLAIM_UID });
  });

  it('names the replacing claim and the reservation it names now, and says what happens next', () => {
    const replaced = rejectionOf(recheckConsumer(apiClaim({ uid: OTHER_UID }), apiPod(), VERIFIED, 'retry'));
    expect(replaced.object).toMatchObject({ kind: 'ResourceClaim', uid: OTHER_UID });
    const moved = rejectionOf(recheckConsumer(apiClaim({ reservedFor: [podConsumer('trainer-1', OTHER_UID)] }), apiPod(), VERIFIED, 'retry'));
    expect(moved.object).toMatchObject({ kind: 'ResourceClaim', uid: CLAIM_UID, field: 'status.reservedFor' });
    expect(moved.remedy).toBe(
      'nothing more is written for the Pod UID it was prepared for; the kubelet releases it there and prepares it for the Pod it is reserved for now',
    );
  });

  it('refuses a Pod it cannot read', () => {
    const error = rejectionOf(recheckConsumer(apiClaim(), { metadata: {} }, VERIFIED, 'retry'));
    expect([error.code, error.object]).toEqual(['InvalidApiObject', expect.objectContaining({ kind: 'Pod' })]);
  });
});
