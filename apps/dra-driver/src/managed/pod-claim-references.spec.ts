import { describe, expect, it } from '@jest/globals';
import { CLAIM, CLAIM_UID, type ClaimShape, POD_UID, type PodShape, claimOf, podController, podOf, rejectionOf } from '../../test/consumer-fixtures.ts';
import type { ConsumerClaim } from './consumer-objects.ts';
import { podClaimNames } from './pod-claim-names.ts';
import { otherClaimNames, verifyPodClaimReferences } from './pod-claim-references.ts';

const GENERATED = 'trainer-0-net-x7k2p';
const GENERATED_UID = 'a0000000-0000-4000-8000-00000000000a';
const GPU_CLAIM = 'trainer-0-gpu-abcde';
const GPU_UID = 'b0000000-0000-4000-8000-00000000000b';
const OLD_POD_UID = 'd0000000-0000-4000-8000-00000000000d';

const templatePod = (extra: PodShape = {}): PodShape => ({
  resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }],
  resourceClaimStatuses: [{ name: 'net', resourceClaimName: GENERATED }],
  ...extra,
});
const generatedClaim = (extra: ClaimShape = {}): ClaimShape => ({ name: GENERATED, uid: GENERATED_UID, ownerReferences: [podController()], ...extra });

/** Runs the rule as the resolver does: names from the Pod, the claim at hand, the other claims as read. */
function verify(pod: PodShape, claim: ClaimShape, others: readonly ClaimShape[] = [], missing: readonly string[] = []) {
  const livePod = podOf(pod);
  const names = podClaimNames(livePod);
  if (!names.ok) throw names.error;
  const read = new Map<string, ConsumerClaim | undefined>(others.map((other) => [other.name ?? CLAIM, claimOf(other)]));
  for (const name of missing) read.set(name, undefined);
  return verifyPodClaimReferences(livePod, names.value, claimOf(claim), read);
}

describe('verifyPodClaimReferences', () => {
  it('accepts a direct claim the Pod references', () => {
    expect(verify({}, {})).toEqual({ ok: true, value: [{ name: CLAIM, uid: CLAIM_UID, podClaimNames: ['net'] }] });
  });

  it('accepts a template-generated claim the Pod controls', () => {
    expect(verify(templatePod(), generatedClaim())).toEqual({ ok: true, value: [{ name: GENERATED, uid: GENERATED_UID, podClaimNames: ['net'] }] });
  });

  it('lists every claim of the Pod once by UID, keeping alias entries together and skipping absent ones', () => {
    const pod: PodShape = {
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimTemplateName: 'one-gpu' },
        { name: 'skipped', resourceClaimTemplateName: 'maybe' },
        { name: 'net-alias', resourceClaimName: CLAIM },
      ],
      resourceClaimStatuses: [
        { name: 'gpu', resourceClaimName: GPU_CLAIM },
        { name: 'skipped', resourceClaimName: null },
      ],
    };
    expect(verify(pod, {}, [{ name: GPU_CLAIM, uid: GPU_UID, ownerReferences: [podController()] }])).toEqual({
      ok: true,
      value: [
        { name: CLAIM, uid: CLAIM_UID, podClaimNames: ['net', 'net-alias'] },
        { name: GPU_CLAIM, uid: GPU_UID, podClaimNames: ['gpu'] },
      ],
    });
  });

  it('does not owner-check a direct claim', () => {
    expect(verify({}, { ownerReferences: [podController(OLD_POD_UID, 'someone-else')] })).toMatchObject({ ok: true });
  });

  it.each<[string, PodShape, ClaimShape, readonly ClaimShape[], RegExp, Record<string, unknown>]>([
    [
      'a template claim without a controller',
      templatePod(),
      generatedClaim({ ownerReferences: [] }),
      [],
      /claim of entry "net" was not created for Pod workloads\/trainer-0 \(5f1c2d3e-.*\): it has no controller/,
      { kind: 'ResourceClaim', name: GENERATED, field: 'metadata.ownerReferences' },
    ],
    [
      'a template claim left by an earlier Pod of the same name',
      templatePod(),
      generatedClaim({ ownerReferences: [podController(OLD_POD_UID)] }),
      [],
      /it is controlled by Pod trainer-0 \(d0000000-/,
      { kind: 'ResourceClaim', name: GENERATED },
    ],
    [
      'a template claim that names the Pod as a non-controlling owner',
      templatePod(),
      generatedClaim({ ownerReferences: [{ ...podController(), controller: false }] }),
      [],
      /it has no controller/,
      { kind: 'ResourceClaim', name: GENERATED },
    ],
    [
      'another template claim of the Pod that it does not control',
      {
        resourceClaims: [
          { name: 'net', resourceClaimName: CLAIM },
          { name: 'gpu', resourceClaimTemplateName: 'one-gpu' },
        ],
        resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: GPU_CLAIM }],
      },
      {},
      [{ name: GPU_CLAIM, uid: GPU_UID }],
      /claim of entry "gpu" was not created for Pod/,
      { kind: 'ResourceClaim', name: GPU_CLAIM },
    ],
    [
      'a Pod that does not reference the claim',
      { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpus' }] },
      {},
      [{ name: 'gpus', uid: GPU_UID }],
      /does not use ResourceClaim workloads\/nics \(c1a2b3c4-.*\): its spec.resourceClaims resolve to gpus$/,
      { kind: 'Pod', field: 'spec.resourceClaims' },
    ],
    ['a Pod without claims', { resourceClaims: [] }, {}, [], /resolve to no claim$/, { kind: 'Pod', field: 'spec.resourceClaims' }],
    [
      'a Pod whose only reference to the claim was intentionally not created',
      { resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }], resourceClaimStatuses: [{ name: 'net' }] },
      generatedClaim(),
      [],
      /resolve to no claim$/,
      { kind: 'Pod' },
    ],
  ])('refuses %s as ConsumerMismatch', (_, pod, claim, others, detail, object) => {
    const error = rejectionOf(verify(pod, claim, others));
    expect(error.code).toBe('ConsumerMismatch');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject(object);
    expect(error.remedy).toMatch(/\S/);
  });

  it('refuses a Pod whose other claim does not exist', () => {
    const pod: PodShape = {
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimName: 'gpus' },
      ],
    };
    const error = rejectionOf(verify(pod, {}, [], ['gpus']));
    expect(error.code).toBe('ApiNotFound');
    expect(error.detail).toBe('ResourceClaim workloads/gpus of entry "gpu" does not exist');
    expect(error.object).toMatchObject({ kind: 'Pod', field: 'spec.resourceClaims' });
    expect(error.remedy).toMatch(/\S/);
  });

  it("refuses a template claim outside the Pod's namespace, even controlled by the Pod", () => {
    const pod = podOf(templatePod());
    const names = podClaimNames(pod);
    if (!names.ok) throw names.error;
    const elsewhere = { ...claimOf(generatedClaim()), namespace: 'elsewhere' };
    expect(rejectionOf(verifyPodClaimReferences(pod, names.value, elsewhere, new Map())).code).toBe('ConsumerMismatch');
  });

  it('owner-checks against the Pod UID, not its name', () => {
    expect(verify(templatePod(), generatedClaim({ ownerReferences: [podController(POD_UID, 'renamed')] }))).toMatchObject({ ok: true });
  });
});

describe('otherClaimNames', () => {
  it('names each claim to read once, leaving out the claim at hand and absent entries', () => {
    const pod = podOf({
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimName: 'gpus' },
        { name: 'gpu-alias', resourceClaimName: 'gpus' },
        { name: 'skipped', resourceClaimTemplateName: 'maybe' },
      ],
      resourceClaimStatuses: [{ name: 'skipped' }],
    });
    const names = podClaimNames(pod);
    if (!names.ok) throw names.error;
    expect(otherClaimNames(names.value, claimOf())).toEqual(['gpus']);
  });
});

describe('otherClaimNames: entries without a claim', () => {
  it('reads nothing for an entry the resource claim controller left without a claim', () => {
    expect(otherClaimNames([{ kind: 'absent', podClaimName: 'optional' }], claimOf())).toHaveLength(0);
  });
});
