// The reservation check a Pod write's retry makes (§8.1 step 4), on a real API server without a
// controller manager, so the reservations the test writes stay as written.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { verifyClaimStillReserved } from '../../src/managed/claim-still-reserved.ts';

const NS = 'ai-workloads';
const POD_UID = '5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const OTHER_POD_UID = '99999999-0000-4000-8000-000000000000';

let cp: ControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await createNamespace(admin, NS);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

/** A claim allocated one VF and reserved for the given consumers, as the scheduler writes it. */
async function reservedClaim(name: string, reservedFor: readonly Record<string, unknown>[]): Promise<{ namespace: string; name: string; uid: string }> {
  const created = await admin.create(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: NS },
      spec: { devices: { requests: [{ name: 'nic', exactly: { deviceClassName: 'sriov-vf' } }] } },
    },
    { namespace: NS },
  );
  await admin.patch(
    resourceTypes.resourceClaim,
    { namespace: NS, name, subresource: 'status' },
    { status: { allocation: { devices: { results: [{ request: 'nic', driver: DRIVER_NAME, pool: 'worker-1', device: '0000-3b-00-2' }] } }, reservedFor } },
    contentTypes.mergePatch,
  );
  return { namespace: NS, name, uid: created.metadata.uid };
}

describe('verifyClaimStillReserved', () => {
  it('passes a claim still reserved for the Pod', async () => {
    const claim = await reservedClaim('kept', [{ resource: 'pods', name: 'trainer-0', uid: POD_UID }]);
    await expect(verifyClaimStillReserved(admin, claim, POD_UID)).resolves.toBeUndefined();
  }, 30_000);

  it('refuses a claim reserved for another Pod now, naming it', async () => {
    const claim = await reservedClaim('moved', [{ resource: 'pods', name: 'trainer-1', uid: OTHER_POD_UID }]);
    const error = await verifyClaimStillReserved(admin, claim, POD_UID).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'ConsumerMismatch',
      object: { kind: 'ResourceClaim', name: 'moved', field: 'status.reservedFor' },
      detail: `the claim is now reserved for Pod ${NS}/trainer-1 (${OTHER_POD_UID}), not Pod UID ${POD_UID}`,
    });
  }, 30_000);

  it('refuses a claim replaced under its name', async () => {
    const first = await reservedClaim('replaced', [{ resource: 'pods', name: 'trainer-0', uid: POD_UID }]);
    await admin.delete(resourceTypes.resourceClaim, { namespace: NS, name: 'replaced' });
    await reservedClaim('replaced', [{ resource: 'pods', name: 'trainer-0', uid: POD_UID }]);
    await expect(verifyClaimStillReserved(admin, first, POD_UID)).rejects.toMatchObject({ code: 'ObjectReplaced' });
  }, 30_000);
});
