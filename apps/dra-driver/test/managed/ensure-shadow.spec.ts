// ensureShadow against a real API server: one Create with everything the shadow carries, adoption of an
// exact object (a retry, a restart, a response lost in flight), and refusal to touch anything else under
// the shadow's name.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, type BindingAnnotationV1, shadowNameFor } from '@sriov-dra/contract';
import { buildShadowNad, renderShadowConfig } from '@sriov-dra/cni-render';
import { KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, type TcpProxy, createNamespace, installCrds, startControlPlane, startTcpProxy } from '@sriov-dra/k8s/testing';
import { ensureShadow } from '../../src/managed/ensure-shadow.ts';
import type { DesiredShadow } from '../../src/managed/shadow-verification.ts';

const NS = 'ai-workloads';
const SOURCE_CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","vlan":100,"ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}';

let cp: ControlPlane;
let admin: KubeClient;
let pod: KubeObject;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  pod = await admin.create(
    resourceTypes.pod,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trainer-0', namespace: NS }, spec: { containers: [{ name: 'c', image: 'registry.invalid/c' }] } },
    { namespace: NS },
  );
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

/** The shadow of one VF of the test Pod, rendered and built by the code that production uses. */
function shadowFor(pciAddress: string, attachmentID: string): DesiredShadow {
  const rendered = renderShadowConfig({ metadata: { namespace: NS, name: 'rail-a' }, spec: { config: SOURCE_CONFIG } }, pciAddress);
  if (!rendered.ok) throw rendered.error;
  const binding: BindingAnnotationV1 = {
    version: 1,
    attachmentID,
    podUID: pod.metadata.uid,
    claimUID: '7b0f3b5e-2f4c-4d8a-9e61-0c1d2e3f4a5b',
    nodeName: 'worker-1',
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    source: { namespace: NS, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' },
    pciAddress,
    interface: 'net1',
    configSHA256: rendered.value.sha256,
  };
  const built = buildShadowNad(binding, { namespace: NS, name: pod.metadata.name, uid: pod.metadata.uid }, rendered.value);
  if (!built.ok) throw built.error;
  return built.value as unknown as DesiredShadow;
}

const getShadow = (desired: DesiredShadow) =>
  admin.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: desired.metadata.name });

describe('ensureShadow', () => {
  it('creates the shadow in one request with its owner reference, finalizer, labels and binding, then adopts it on a retry', async () => {
    const desired = shadowFor('0000:3b:00.2', 'a'.repeat(64));
    const first = await ensureShadow(admin, desired);
    expect(first.outcome).toBe('created');
    const stored = await getShadow(desired);
    expect(stored.metadata.name).toBe(shadowNameFor('a'.repeat(64)));
    expect(stored.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
    expect(stored.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'trainer-0', uid: pod.metadata.uid, blockOwnerDeletion: false }]);
    expect(stored.spec.config).toBe(desired.spec.config);

    await expect(ensureShadow(admin, desired)).resolves.toEqual({ uid: stored.metadata.uid, outcome: 'adopted' });
    expect((await getShadow(desired)).metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  }, 30_000);

  it('adopts the object of a Create whose response was lost', async () => {
    const desired = shadowFor('0000:3b:00.3', 'b'.repeat(64));
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(cp.server).port) });
    // The answer to the Create is held back past the client's deadline; the object exists all the same.
    const client = KubeClient.fromConfig(cp.adminClientAt(proxy.via(cp.server)).config, { qps: 1_000, burst: 1_000, requestTimeoutMs: 1_500 });
    try {
      await client.get(resourceTypes.namespace, { name: NS });
      const release = proxy.hold();
      const ensured = await ensureShadow(client, desired);
      release();
      expect(ensured.outcome).toBe('adopted');
      expect(ensured.uid).toBe((await getShadow(desired)).metadata.uid);
    } finally {
      client.close();
      await proxy.close();
    }
  }, 30_000);

  it('refuses an object under the shadow’s name that is not exactly this shadow, and leaves it untouched', async () => {
    const desired = shadowFor('0000:3b:00.4', 'c'.repeat(64));
    const foreign = await admin.create(
      resourceTypes.networkAttachmentDefinition,
      { ...desired, spec: { config: desired.spec.config.replace('"vlan":100', '"vlan":200') } },
      { namespace: NS },
    );
    await expect(ensureShadow(admin, desired)).rejects.toMatchObject({ code: 'ShadowConflict', message: expect.stringContaining('spec.config differs') });
    expect((await getShadow(desired)).metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);

    const other = shadowFor('0000:3b:00.5', 'd'.repeat(64));
    await admin.create(
      resourceTypes.networkAttachmentDefinition,
      { ...other, metadata: { ...other.metadata, ownerReferences: [{ ...other.metadata.ownerReferences[0], blockOwnerDeletion: true }] } },
      { namespace: NS },
    );
    await expect(ensureShadow(admin, other)).rejects.toMatchObject({ code: 'ShadowConflict', message: expect.stringContaining('blocks owner deletion') });
  }, 30_000);

  it('never recreates a shadow that is being deleted', async () => {
    const desired = shadowFor('0000:3b:00.6', 'e'.repeat(64));
    await ensureShadow(admin, desired);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: desired.metadata.name });
    await expect(ensureShadow(admin, desired)).rejects.toMatchObject({ code: 'ShadowDeletionPending' });
    expect((await getShadow(desired)).metadata.deletionTimestamp).toBeDefined();
  }, 30_000);

  it('restores a stripped protection finalizer on an exact live shadow', async () => {
    const desired = shadowFor('0000:3b:00.7', 'f'.repeat(64));
    const { uid } = await ensureShadow(admin, desired);
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: desired.metadata.name },
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await expect(ensureShadow(admin, desired)).resolves.toEqual({ uid, outcome: 'repaired' });
    expect((await getShadow(desired)).metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
  }, 30_000);

  it('passes a refusal of the API server through, typed', async () => {
    const desired = shadowFor('0000:3b:01.0', '1'.repeat(64));
    await expect(ensureShadow(cp.clientFor('nobody'), desired)).rejects.toMatchObject({ code: 'ApiForbidden' });
  }, 30_000);
});
