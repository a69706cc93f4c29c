import { describe, expect, it } from '@jest/globals';
import { NAMESPACE, NODE, NODE_UID, POD, POD_UID, type PodShape, podOf, rejectionOf } from '../../test/consumer-fixtures.ts';
import type { ConsumerNode } from './consumer-objects.ts';
import { type ResolvePurpose, checkPodEligibility, verifyConsumerPod } from './consumer-pod.ts';

const RESERVED = { namespace: NAMESPACE, name: POD, uid: POD_UID };
const SERVED = { name: NODE, uid: NODE_UID };
const LIVE_NODE: ConsumerNode = { name: NODE, uid: NODE_UID };

describe('verifyConsumerPod', () => {
  it('accepts the reserved Pod bound to the served node, whose Node is the one the driver started for', () => {
    const pod = podOf();
    expect(verifyConsumerPod(RESERVED, pod, LIVE_NODE, SERVED)).toEqual({ ok: true, value: pod });
  });

  it.each<[string, PodShape | undefined, ConsumerNode | undefined, RegExp, Record<string, unknown>]>([
    ['a deleted Pod', undefined, LIVE_NODE, /the Pod the claim is reserved for does not exist/, { kind: 'Pod', name: POD, uid: POD_UID }],
    [
      'a Pod replaced under the same name',
      { uid: '99999999-0000-4000-8000-000000000000' },
      LIVE_NODE,
      /has UID 99999999-0000-4000-8000-000000000000, the claim is reserved for UID 5f1c2d3e-/,
      { kind: 'Pod', name: POD, uid: POD_UID },
    ],
    ['a Pod on another node', { nodeName: 'worker-b' }, LIVE_NODE, /bound to node worker-b, this driver serves worker-a/, { field: 'spec.nodeName' }],
    ['a Pod not bound to a node', { nodeName: null }, LIVE_NODE, /not bound to a node/, { field: 'spec.nodeName' }],
    ['a deleted Node', {}, undefined, /the Node this driver serves does not exist/, { kind: 'Node', name: NODE }],
    [
      'a re-created Node',
      {},
      { name: NODE, uid: 'ffffffff-0000-4000-8000-000000000000' },
      /Node has UID ffffffff-0000-4000-8000-000000000000, this driver started for UID 0b8f7a8e-/,
      { kind: 'Node', name: NODE },
    ],
  ])('refuses %s as ConsumerMismatch', (_, shape, node, detail, object) => {
    const error = rejectionOf(verifyConsumerPod(RESERVED, shape === undefined ? undefined : podOf(shape), node, SERVED));
    expect(error.code).toBe('ConsumerMismatch');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject(object);
  });

  it('tells to restart the driver when its Node was re-created', () => {
    const error = rejectionOf(verifyConsumerPod(RESERVED, podOf(), { name: NODE, uid: 'ffffffff-0000-4000-8000-000000000000' }, SERVED));
    expect(error.remedy).toMatch(/restart the driver on this node/);
  });
});

describe('checkPodEligibility', () => {
  it.each<[string, PodShape, ResolvePurpose, RegExp | undefined]>([
    ['an ordinary Pod on prepare', {}, 'prepare', undefined],
    ['a terminating Pod on prepare', { deletionTimestamp: '2026-01-01T00:00:00Z' }, 'prepare', /the Pod is terminating/],
    ['a hostNetwork Pod on prepare', { hostNetwork: true }, 'prepare', /the Pod uses hostNetwork/],
    ['a Pod with hostNetwork false on prepare', { hostNetwork: false }, 'prepare', undefined],
    ['a terminating Pod on retry', { deletionTimestamp: '2026-01-01T00:00:00Z' }, 'retry', undefined],
    ['a hostNetwork Pod on retry', { hostNetwork: true }, 'retry', undefined],
  ])('judges %s', (_, shape, purpose, refusal) => {
    const outcome = checkPodEligibility(podOf(shape), purpose);
    if (refusal === undefined) {
      expect(outcome).toEqual({ ok: true, value: undefined });
      return;
    }
    const error = rejectionOf(outcome);
    expect(error.code).toBe('PodNotEligible');
    expect(error.detail).toMatch(refusal);
    expect(error.object).toMatchObject({
      kind: 'Pod',
      namespace: NAMESPACE,
      name: POD,
      field: shape.hostNetwork === true ? 'spec.hostNetwork' : 'metadata.deletionTimestamp',
    });
    expect(error.remedy).toMatch(/\S/);
  });
});

describe('verifyConsumerPod: the first broken rule', () => {
  it('reports a missing Pod before a missing Node', () => {
    const error = rejectionOf(verifyConsumerPod(RESERVED, undefined, undefined, SERVED));
    expect(error.object).toMatchObject({ kind: 'Pod', name: POD });
  });
});
