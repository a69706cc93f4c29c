// With the real garbage collector: a shadow NAD owned by its Pod (blockOwnerDeletion false) and held by
// the driver's finalizer never blocks the Pod's deletion, background or foreground; the NAD stays
// Terminating until the finalizer is removed and then disappears.
import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER } from '@sriov-dra/contract';
import { isApiError } from '../src/api-errors.ts';
import { removeFinalizer } from '../src/finalizers.ts';
import { type ResourceType, resourceTypes } from '../src/resources.ts';
import { waitFor } from '../src/testing/index.ts';
import { createPod, ownedNad, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ controllerManager: true, crds: true, namespace: 'gc' });

async function gone(type: ResourceType, name: string): Promise<boolean> {
  try {
    await shared.admin.get(type, { namespace: 'gc', name });
    return false;
  } catch (error) {
    if (isApiError(error, 'NotFound')) return true;
    throw error;
  }
}

describe.each(['Background', 'Foreground'] as const)('%s deletion of the owner Pod', (propagationPolicy) => {
  it('is not blocked by the protected NAD, which stays Terminating until its finalizer is removed', async () => {
    const podName = `owner-${propagationPolicy.toLowerCase()}`;
    const nadName = `shadow-${propagationPolicy.toLowerCase()}`;
    const pod = await createPod(shared.admin, 'gc', podName);
    const nad = await shared.admin.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, nadName, [ATTACHMENT_PROTECTION_FINALIZER]), {
      namespace: 'gc',
    });

    await shared.admin.delete(resourceTypes.pod, { namespace: 'gc', name: podName }, { propagationPolicy, gracePeriodSeconds: 0, uid: pod.metadata.uid });
    await waitFor(`Pod ${podName} deleted`, () => gone(resourceTypes.pod, podName), { timeoutMs: 30_000 });

    await waitFor(
      `NAD ${nadName} terminating`,
      async () =>
        (await shared.admin.get(resourceTypes.networkAttachmentDefinition, { namespace: 'gc', name: nadName })).metadata.deletionTimestamp !== undefined,
      { timeoutMs: 30_000 },
    );
    const terminating = await shared.admin.get(resourceTypes.networkAttachmentDefinition, { namespace: 'gc', name: nadName });
    expect(terminating.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
    expect(terminating.metadata.uid).toBe(nad.metadata.uid);

    expect(
      await removeFinalizer(
        shared.admin,
        resourceTypes.networkAttachmentDefinition,
        { namespace: 'gc', name: nadName, uid: nad.metadata.uid },
        ATTACHMENT_PROTECTION_FINALIZER,
      ),
    ).toBe('removed');
    await waitFor(`NAD ${nadName} deleted`, () => gone(resourceTypes.networkAttachmentDefinition, nadName), { timeoutMs: 30_000 });
  }, 90_000);
});
