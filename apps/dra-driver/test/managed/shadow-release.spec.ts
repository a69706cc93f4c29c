// Releasing a shadow against a real API server with the garbage collector running: the deletion request
// leaves it Terminating (protected) until the finalizer goes; a same-name replacement is never deleted;
// foreign finalizers stay; Pod deletion does not remove a protected shadow by itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { releaseShadowFinalizer, requestShadowDeletion } from '../../src/managed/shadow-release.ts';

const NS = 'ai-workloads';

let cp: ControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  cp = await startControlPlane({ controllerManager: true });
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

async function createShadow(name: string, owner?: KubeObject, finalizers: string[] = [ATTACHMENT_PROTECTION_FINALIZER]): Promise<KubeObject> {
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name,
        namespace: NS,
        finalizers,
        ...(owner === undefined
          ? {}
          : { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: false }] }),
      },
      spec: { config: '{"cniVersion":"1.0.0","name":"x","type":"sriov","deviceID":"0000:3b:00.2"}' },
    },
    { namespace: NS },
  );
}

const exists = (name: string): Promise<KubeObject | undefined> =>
  admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name }).catch(() => undefined);

describe('shadow release', () => {
  it('keeps the shadow Terminating after the deletion request until its finalizer is released, foreign finalizers kept', async () => {
    const shadow = await createShadow('sriov-dra-a', undefined, [ATTACHMENT_PROTECTION_FINALIZER, 'example.com/audit']);
    const owned = { namespace: NS, name: 'sriov-dra-a', uid: shadow.metadata.uid };
    await expect(requestShadowDeletion(admin, owned)).resolves.toMatchObject({ outcome: 'terminating', current: { metadata: { uid: owned.uid } } });
    expect((await exists('sriov-dra-a'))?.metadata.deletionTimestamp).toBeDefined();
    await expect(releaseShadowFinalizer(admin, owned)).resolves.toBe('removed');
    expect((await exists('sriov-dra-a'))?.metadata.finalizers).toEqual(['example.com/audit']);
    await expect(releaseShadowFinalizer(admin, owned)).resolves.toBe('absent');
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: 'sriov-dra-a' },
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await waitFor('the shadow gone', async () => (await exists('sriov-dra-a')) === undefined, { timeoutMs: 10_000 });
    await expect(requestShadowDeletion(admin, owned)).resolves.toEqual({ outcome: 'gone' });
    await expect(releaseShadowFinalizer(admin, owned)).resolves.toBe('gone');
  }, 30_000);

  it('never deletes an object recreated under the shadow’s name', async () => {
    const first = await createShadow('sriov-dra-b', undefined, []);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'sriov-dra-b' });
    await waitFor('the first gone', async () => (await exists('sriov-dra-b')) === undefined, { timeoutMs: 10_000 });
    const replacement = await createShadow('sriov-dra-b', undefined, []);
    await expect(requestShadowDeletion(admin, { namespace: NS, name: 'sriov-dra-b', uid: first.metadata.uid })).rejects.toMatchObject({
      code: 'ShadowConflict',
    });
    expect((await exists('sriov-dra-b'))?.metadata.uid).toBe(replacement.metadata.uid);
  }, 30_000);

  it.each(['Background', 'Foreground'] as const)(
    'with the garbage collector, %s deletion of the Pod leaves its shadow Terminating until released',
    async (propagationPolicy) => {
      const pod = await admin.create(
        resourceTypes.pod,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `consumer-${propagationPolicy.toLowerCase()}`, namespace: NS },
          spec: { containers: [{ name: 'c', image: 'registry.invalid/c' }] },
        },
        { namespace: NS },
      );
      const name = `sriov-dra-gc-${propagationPolicy.toLowerCase()}`;
      const shadow = await createShadow(name, pod);
      await admin.delete(resourceTypes.pod, { namespace: NS, name: pod.metadata.name }, { propagationPolicy, gracePeriodSeconds: 0 });
      // The Pod goes (blockOwnerDeletion false: it does not wait for the shadow); the collector then deletes the shadow, which its finalizer holds.
      await waitFor(
        'the Pod gone',
        () =>
          admin.get(resourceTypes.pod, { namespace: NS, name: pod.metadata.name }).then(
            () => false,
            () => true,
          ),
        { timeoutMs: 30_000 },
      );
      await waitFor('the shadow Terminating', async () => (await exists(name))?.metadata.deletionTimestamp !== undefined, { timeoutMs: 30_000 });
      await expect(releaseShadowFinalizer(admin, { namespace: NS, name, uid: shadow.metadata.uid })).resolves.toBe('removed');
      await waitFor('the shadow gone', async () => (await exists(name)) === undefined, { timeoutMs: 10_000 });
    },
    60_000,
  );
});
