// publishPodSelections against a real API server: managed selections and the registry merged into the
// live Pod next to other writers' entries, behind UID/resourceVersion tests; releases remove only their
// claim's entries; nothing is written when nothing changes or when the result is refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type RegistryEntry, annotations, shadowNameFor } from '@sriov-dra/contract';
import type { ManagedSelection } from '@sriov-dra/cni-render';
import { type KubeClient, type Pod, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { publishPodSelections } from '../../src/managed/pod-selections.ts';

const NS = 'ai-workloads';
const NODE = 'worker-1';
const CLAIM_A = '7b0f3b5e-2f4c-4d8a-9e61-0c1d2e3f4a5b';
const CLAIM_B = '8c1f4c6f-3a5d-4e9b-8f72-1d2e3f4a5b6c';
const FOREIGN = '[{"name":"storage-net","namespace":"ai-workloads","interface":"stor0"}]';

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

async function createPod(name: string, node = NODE): Promise<Pod & { metadata: { uid: string; name: string; resourceVersion: string } }> {
  return admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS, annotations: { [annotations.networks]: FOREIGN } },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.invalid/c' }] },
    },
    { namespace: NS },
  );
}

function selection(claimUID: string, digit: string, ifName: string): ManagedSelection {
  const attachmentID = digit.repeat(64);
  const entry: RegistryEntry = {
    attachmentID,
    claimUID,
    namespace: NS,
    name: shadowNameFor(attachmentID),
    uid: `${digit.repeat(8)}-1111-4111-8111-111111111111`,
    interface: ifName,
    configSHA256: 'f'.repeat(64),
  };
  return { entry, source: { namespace: NS, name: 'rail-a' } };
}

/** The Pod's networks annotation, decoded. */
const selectionsOf = async (name: string): Promise<{ name: string; interface: string }[]> =>
  JSON.parse((await podAnnotations(name))[annotations.networks] ?? '[]') as { name: string; interface: string }[];

const podAnnotations = async (name: string): Promise<Record<string, string>> =>
  (await admin.get<Pod>(resourceTypes.pod, { namespace: NS, name })).metadata.annotations ?? {};

describe('publishPodSelections', () => {
  it('appends the managed selections after other writers’ entries, records them, and writes nothing the second time', async () => {
    const pod = await createPod('trainer-0');
    const desired = [selection(CLAIM_A, 'a', 'net1'), selection(CLAIM_B, 'b', 'net2')];
    const target = { namespace: NS, name: 'trainer-0', uid: pod.metadata.uid, nodeName: NODE };
    const first = await publishPodSelections(admin, target, { desired });
    expect({ written: first.written, attempts: first.attempts }).toEqual({ written: true, attempts: 1 });
    const written = await podAnnotations('trainer-0');
    expect(JSON.parse(written[annotations.networks] ?? '')).toEqual([
      { name: 'storage-net', namespace: NS, interface: 'stor0' },
      { name: shadowNameFor('a'.repeat(64)), namespace: NS, interface: 'net1' },
      { name: shadowNameFor('b'.repeat(64)), namespace: NS, interface: 'net2' },
    ]);
    expect(JSON.parse(written[annotations.managedNetworks] ?? '')).toEqual({
      version: 1,
      podUID: pod.metadata.uid,
      entries: desired.map(({ entry }) => entry),
    });

    const before = (await admin.get<Pod & { metadata: { resourceVersion: string } }>(resourceTypes.pod, { namespace: NS, name: 'trainer-0' })).metadata
      .resourceVersion;
    const second = await publishPodSelections(admin, target, { desired });
    expect({ written: second.written, attempts: second.attempts }).toEqual({ written: false, attempts: 0 });
    // The Pod handed back is the one the first write left, unchanged since.
    expect(second.pod.metadata.resourceVersion).toBe(first.pod.metadata.resourceVersion);
    expect(
      (await admin.get<Pod & { metadata: { resourceVersion: string } }>(resourceTypes.pod, { namespace: NS, name: 'trainer-0' })).metadata.resourceVersion,
    ).toBe(before);

    // Releasing claim A removes its entry only; the other writer's and claim B's stay.
    await publishPodSelections(admin, target, { desired: [desired[1] as ManagedSelection], releasedClaims: [CLAIM_A] });
    expect((await selectionsOf('trainer-0')).map((entry) => entry.interface)).toEqual(['stor0', 'net2']);
  }, 30_000);

  it('recomputes from the live Pod when another writer got there first, keeping that writer’s entry', async () => {
    const pod = await createPod('trainer-1');
    const stale = pod;
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'trainer-1' },
      { metadata: { annotations: { [annotations.networks]: '[{"name":"storage-net","interface":"stor0"},{"name":"late-net","interface":"late0"}]' } } },
      'application/merge-patch+json',
    );
    const target = { namespace: NS, name: 'trainer-1', uid: pod.metadata.uid, nodeName: NODE };
    const result = await publishPodSelections(admin, target, { desired: [selection(CLAIM_A, 'c', 'net1')] }, { current: stale });
    expect({ written: result.written, attempts: result.attempts }).toEqual({ written: true, attempts: 2 });
    expect((await selectionsOf('trainer-1')).map((entry) => entry.name)).toEqual(['storage-net', 'late-net', shadowNameFor('c'.repeat(64))]);
  }, 30_000);

  it('refuses a replaced Pod, a Pod on another node, and an oversized result, writing nothing', async () => {
    const pod = await createPod('trainer-2');
    const desired = [selection(CLAIM_A, 'd', 'net1')];
    await expect(
      publishPodSelections(admin, { namespace: NS, name: 'trainer-2', uid: '00000000-0000-4000-8000-000000000000', nodeName: NODE }, { desired }),
    ).rejects.toMatchObject({
      code: 'ObjectReplaced',
    });
    await expect(
      publishPodSelections(admin, { namespace: NS, name: 'trainer-2', uid: pod.metadata.uid, nodeName: 'worker-9' }, { desired }),
    ).rejects.toMatchObject({
      code: 'ConsumerMismatch',
    });
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'trainer-2' },
      { metadata: { annotations: { 'example.com/bulk': 'x'.repeat(256 * 1024 - 600) } } },
      'application/merge-patch+json',
    );
    const before = await podAnnotations('trainer-2');
    await expect(publishPodSelections(admin, { namespace: NS, name: 'trainer-2', uid: pod.metadata.uid, nodeName: NODE }, { desired })).rejects.toMatchObject({
      code: 'AnnotationTooLarge',
    });
    expect(await podAnnotations('trainer-2')).toEqual(before);
  }, 30_000);
});
