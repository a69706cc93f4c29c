import { describe, expect, it } from '@jest/globals';
import type { AdmissionRequest } from './admission-review.ts';
import { reviewAdmission } from './review-admission.ts';

const OPTIONS = { operatorNamespace: 'sriov-network-operator' };
const POLICY_KIND = { group: 'sriovnetwork.openshift.io', version: 'v1', kind: 'SriovNetworkNodePolicy' };
const NETWORK_KIND = { ...POLICY_KIND, kind: 'SriovNetwork' };

function policy(namespace: string | undefined, name: string, dra: unknown): Record<string, unknown> {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    spec: { numVfs: 4, dra },
  };
}

function request(overrides: Partial<AdmissionRequest>): AdmissionRequest {
  return { uid: 'b3c1', kind: POLICY_KIND, operation: 'CREATE', namespace: 'team-a', name: 'rail-a', object: policy('team-a', 'rail-a', {}), ...overrides };
}

const INVALID = { attributes: { tier: { int: 1 } } };

describe('reviewAdmission', () => {
  it('admits a valid CREATE, echoing the uid', () => {
    expect(reviewAdmission(request({}), 'SriovNetworkNodePolicy', OPTIONS)).toEqual({ uid: 'b3c1', allowed: true });
  });

  it('refuses an invalid CREATE with 422 Invalid, the object and field in the message and one cause per finding', () => {
    const response = reviewAdmission(request({ object: policy('team-a', 'rail-a', INVALID) }), 'SriovNetworkNodePolicy', OPTIONS);
    expect(response).toMatchObject({
      uid: 'b3c1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: expect.stringMatching(/^SriovNetworkNodePolicy team-a\/rail-a: spec\.dra\.attributes\["tier"\]: InvalidDRAAttribute: key "tier" is not /),
        details: {
          group: 'sriovnetwork.openshift.io',
          kind: 'SriovNetworkNodePolicy',
          name: 'rail-a',
          causes: [{ reason: 'FieldValueInvalid', field: 'spec.dra.attributes["tier"]', message: expect.stringMatching(/^InvalidDRAAttribute: /) }],
        },
      },
    });
  });

  it('refuses with every finding at once: each in the message after the object, and each a cause', () => {
    const object = policy('sriov-network-operator', 'default', { atributes: {}, attributes: { tier: { int: 1 }, 'example.com/x': { string: 'x', int: 1 } } });
    const response = reviewAdmission(request({ namespace: 'sriov-network-operator', name: 'default', object }), 'SriovNetworkNodePolicy', OPTIONS);
    const fields = ['spec.dra', 'spec.dra.atributes', 'spec.dra.attributes["tier"]', 'spec.dra.attributes["example.com/x"]'];
    const codes = ['DRABlockOnDefaultPolicy', 'InvalidDRAAttribute', 'InvalidDRAAttribute', 'InvalidDRAAttribute'];
    const causes = response.status?.details?.causes ?? [];
    expect(causes.map((cause) => [cause.reason, cause.field, cause.message.split(':')[0]])).toEqual(
      fields.map((field, index) => ['FieldValueInvalid', field, codes[index]]),
    );
    expect(response.status?.message).toBe(
      `SriovNetworkNodePolicy sriov-network-operator/default: ${causes.map((cause) => `${cause.field}: ${cause.message}`).join('; ')}`,
    );
  });

  it('places an object without metadata.namespace in the request namespace (the default-policy rule depends on it)', () => {
    const review = request({ namespace: 'sriov-network-operator', name: 'default', object: policy(undefined, 'default', {}) });
    expect(reviewAdmission(review, 'SriovNetworkNodePolicy', OPTIONS).status?.message).toMatch(
      /^SriovNetworkNodePolicy sriov-network-operator\/default: spec\.dra: DRABlockOnDefaultPolicy: /,
    );
  });

  it.each(['DELETE', 'CONNECT'] as const)('admits %s whatever the object', (operation) => {
    expect(reviewAdmission(request({ operation, object: null, oldObject: policy('team-a', 'rail-a', INVALID) }), 'SriovNetworkNodePolicy', OPTIONS)).toEqual({
      uid: 'b3c1',
      allowed: true,
    });
  });

  it('admits an UPDATE that leaves an invalid stored spec unchanged, with the findings as warnings', () => {
    const stored = policy('team-a', 'rail-a', INVALID);
    const relabelled = { ...stored, metadata: { name: 'rail-a', namespace: 'team-a', labels: { tier: 'gold' } } };
    const response = reviewAdmission(request({ operation: 'UPDATE', object: relabelled, oldObject: stored }), 'SriovNetworkNodePolicy', OPTIONS);
    expect(response).toEqual({
      uid: 'b3c1',
      allowed: true,
      warnings: [
        expect.stringMatching(
          /^SriovNetworkNodePolicy team-a\/rail-a: spec\.dra\.attributes\["tier"\]: InvalidDRAAttribute: .*\(stored before this check; fix it\)$/,
        ),
      ],
    });
  });

  it('refuses an UPDATE that changes the spec and leaves it invalid', () => {
    const stored = policy('team-a', 'rail-a', INVALID);
    const changed = policy('team-a', 'rail-a', { attributes: { tier: { int: 2 } } });
    expect(reviewAdmission(request({ operation: 'UPDATE', object: changed, oldObject: stored }), 'SriovNetworkNodePolicy', OPTIONS).allowed).toBe(false);
  });

  it('refuses with 400 a review of another kind than the path validates, naming the configuration fault', () => {
    const response = reviewAdmission(request({ kind: NETWORK_KIND }), 'SriovNetworkNodePolicy', OPTIONS);
    expect(response).toEqual({
      uid: 'b3c1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message:
          'this endpoint validates SriovNetworkNodePolicy.sriovnetwork.openshift.io/v1 only, but was sent SriovNetwork.sriovnetwork.openshift.io/v1: fix the rules of the ValidatingWebhookConfiguration',
      },
    });
  });

  it.each([undefined, null, 'x', {}, { metadata: 'x' }])('refuses with 400 a CREATE whose object is %p', (object) => {
    expect(reviewAdmission(request({ object }), 'SriovNetworkNodePolicy', OPTIONS).status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  it('judges a SriovNetwork by the rendering rules', () => {
    const network = { metadata: { name: 'rail-a', namespace: 'team-a' }, spec: { resourceName: 'r', networkNamespace: 'team-b' } };
    expect(reviewAdmission(request({ kind: NETWORK_KIND, object: network }), 'SriovNetwork', OPTIONS).status?.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.networkNamespace', message: expect.stringMatching(/^NetworkAttachmentDefinitionInvalid: /) },
    ]);
  });
});
