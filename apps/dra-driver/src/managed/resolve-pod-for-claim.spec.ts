import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME, SriovDraError } from '@sriov-dra/contract';
import {
  CLAIM,
  CLAIM_UID,
  NAMESPACE,
  NODE,
  NODE_UID,
  POD,
  POD_UID,
  SNAPSHOT,
  VF_A,
  VF_B,
  apiClaim,
  apiNode,
  apiPod,
  gpuResult,
  podController,
  rejection,
  vfResult,
} from '../../test/consumer-fixtures.ts';
import type { ResolvePurpose } from './consumer-pod.ts';
import { type ConsumerReader, type ResolvedConsumer, resolvePodForClaim } from './resolve-pod-for-claim.ts';

/** A reader over fixed objects, recording each GET; a missing key is a 404. */
function fakeReader(objects: Readonly<Record<string, unknown>>): ConsumerReader & { readonly reads: string[] } {
  const reads: string[] = [];
  const get = (key: string): Promise<unknown> => {
    reads.push(key);
    const object = objects[key];
    return object instanceof Error ? Promise.reject(object) : Promise.resolve(object);
  };
  return {
    reads,
    pod: (namespace, name) => get(`pod ${namespace}/${name}`),
    node: (name) => get(`node ${name}`),
    claim: (namespace, name) => get(`claim ${namespace}/${name}`),
  };
}

const LIVE = { [`pod ${NAMESPACE}/${POD}`]: apiPod(), [`node ${NODE}`]: apiNode() };

function resolve(claim: unknown, reader: ConsumerReader, purpose: ResolvePurpose = 'prepare'): Promise<ResolvedConsumer> {
  return resolvePodForClaim(claim, { reader, nodeName: NODE, nodeUID: NODE_UID, driverName: DRIVER_NAME, snapshot: SNAPSHOT, purpose });
}

describe('resolvePodForClaim', () => {
  it("resolves the Pod, its claims and this driver's devices, reading the Pod, the Node and the Pod's other claims", async () => {
    const GPU_CLAIM = 'trainer-0-gpu-abcde';
    const GPU_UID = 'b0000000-0000-4000-8000-00000000000b';
    const pod = apiPod({
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimTemplateName: 'one-gpu' },
      ],
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: GPU_CLAIM }],
    });
    const reader = fakeReader({
      ...LIVE,
      [`pod ${NAMESPACE}/${POD}`]: pod,
      [`claim ${NAMESPACE}/${GPU_CLAIM}`]: apiClaim({ name: GPU_CLAIM, uid: GPU_UID, ownerReferences: [podController()], results: [gpuResult()] }),
    });
    const resolved = await resolve(apiClaim({ results: [vfResult(VF_A), gpuResult(), vfResult(VF_B)] }), reader);
    expect({ ...resolved, livePod: resolved.livePod.metadata.resourceVersion, otherClaims: [...resolved.otherClaims.keys()] }).toEqual({
      livePod: '7',
      otherClaims: [GPU_CLAIM],
      pod: { namespace: NAMESPACE, name: POD, uid: POD_UID, nodeName: NODE, annotations: {} },
      claims: [
        { name: CLAIM, uid: CLAIM_UID, podClaimNames: ['net'] },
        { name: GPU_CLAIM, uid: GPU_UID, podClaimNames: ['gpu'] },
      ],
      results: [
        { request: 'vfs', pool: NODE, device: VF_A },
        { request: 'vfs', pool: NODE, device: VF_B },
      ],
    });
    // The claim at hand was just read by the caller; it is not read again.
    expect(reader.reads.sort()).toEqual([`claim ${NAMESPACE}/${GPU_CLAIM}`, `node ${NODE}`, `pod ${NAMESPACE}/${POD}`]);
  });

  it('reads nothing for a claim that is not reserved for one Pod', async () => {
    const reader = fakeReader(LIVE);
    expect((await rejection(resolve(apiClaim({ reservedFor: [] }), reader))).code).toBe('InvalidClaimReservation');
    expect(reader.reads).toEqual([]);
  });

  it('refuses a malformed claim as InvalidApiObject', async () => {
    const error = await rejection(resolve({ metadata: { name: CLAIM, namespace: NAMESPACE } }, fakeReader(LIVE)));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.object).toEqual({ kind: 'ResourceClaim', namespace: NAMESPACE, name: CLAIM });
  });

  it('refuses a malformed Pod from the API server as InvalidApiObject naming the Pod', async () => {
    const error = await rejection(resolve(apiClaim(), fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: { metadata: { name: POD } } })));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.object).toMatchObject({ kind: 'Pod', namespace: NAMESPACE, name: POD });
  });

  it('refuses a claim whose Pod is gone', async () => {
    expect((await rejection(resolve(apiClaim(), fakeReader({ [`node ${NODE}`]: apiNode() })))).code).toBe('ConsumerMismatch');
  });

  it('refuses a terminating Pod on prepare and continues on retry', async () => {
    const reader = fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: apiPod({ deletionTimestamp: '2026-01-01T00:00:00Z' }) });
    expect((await rejection(resolve(apiClaim(), reader, 'prepare'))).code).toBe('PodNotEligible');
    await expect(resolve(apiClaim(), reader, 'retry')).resolves.toMatchObject({ pod: { uid: POD_UID } });
  });

  it('checks identity on retry too', async () => {
    const reader = fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: apiPod({ uid: 'e0000000-0000-4000-8000-00000000000e' }) });
    expect((await rejection(resolve(apiClaim(), reader, 'retry'))).code).toBe('ConsumerMismatch');
  });

  it("reports the scheduler's extended-resource claim as such, although the Pod does not reference it", async () => {
    const name = 'trainer-0-extended-resources-x7k2p';
    const pod = apiPod({ extendedResourceClaimStatus: { resourceClaimName: name, requestMappings: [] } });
    const claim = apiClaim({ name, ownerReferences: [podController()] });
    expect((await rejection(resolve(claim, fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: pod })))).code).toBe('UnsupportedManagedClaimKind');
  });

  it('refuses a malformed other claim as InvalidApiObject naming it', async () => {
    const pod = apiPod({
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimName: 'gpus' },
      ],
    });
    const error = await rejection(
      resolve(apiClaim(), fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: pod, [`claim ${NAMESPACE}/gpus`]: { kind: 'ResourceClaim' } })),
    );
    expect(error.code).toBe('InvalidApiObject');
    expect(error.object).toEqual({ kind: 'ResourceClaim', namespace: NAMESPACE, name: 'gpus' });
  });

  it('refuses a Pod whose other claim does not exist as ApiNotFound, not as a malformed claim', async () => {
    const pod = apiPod({
      resourceClaims: [
        { name: 'net', resourceClaimName: CLAIM },
        { name: 'gpu', resourceClaimName: 'gpus' },
      ],
    });
    const error = await rejection(resolve(apiClaim(), fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: pod })));
    expect(error.code).toBe('ApiNotFound');
  });

  it('refuses a Pod whose fields the consumer check reads but whose other fields are malformed, naming the field', async () => {
    const pod = { ...apiPod(), status: { phase: 5 } };
    const error = await rejection(resolve(apiClaim(), fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: pod })));
    expect(error.toJSON()).toMatchObject({
      code: 'MalformedApiResponse',
      detail: 'the Pod as read lacks status.phase',
      object: { kind: 'Pod', namespace: NAMESPACE, name: POD, uid: POD_UID },
    });
  });

  it('refuses when the Node this driver serves is gone', async () => {
    const error = await rejection(resolve(apiClaim(), fakeReader({ [`pod ${NAMESPACE}/${POD}`]: apiPod() })));
    expect([error.code, error.object]).toEqual(['ConsumerMismatch', { kind: 'Node', name: NODE }]);
  });

  it('refuses a malformed Node from the API server, naming this node', async () => {
    const error = await rejection(resolve(apiClaim(), fakeReader({ ...LIVE, [`node ${NODE}`]: { kind: 'Node' } })));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.object).toMatchObject({ kind: 'Node', name: NODE });
  });

  it('passes an API failure through unchanged', async () => {
    const forbidden = new SriovDraError('ApiForbidden', 'GET pods');
    const error = await rejection(resolve(apiClaim(), fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: forbidden })));
    expect(error).toBe(forbidden);
  });

  it("validates this driver's devices last, after the consumer is proven", async () => {
    const reader = fakeReader({ ...LIVE, [`pod ${NAMESPACE}/${POD}`]: apiPod({ nodeName: 'worker-b' }) });
    const claim = apiClaim({ results: [vfResult(VF_A, 'vfs', { pool: 'worker-b' })] });
    expect((await rejection(resolve(claim, reader))).code).toBe('ConsumerMismatch');
    expect((await rejection(resolve(claim, fakeReader(LIVE)))).code).toBe('DeviceNotEligible');
  });
});
