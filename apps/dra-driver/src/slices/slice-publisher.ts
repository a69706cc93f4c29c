import { SriovDraError } from '@sriov-dra/contract';
import { type JsonPatchOp, type KubeClient, contentTypes, identityPreconditions, isApiError, pointer, resourceTypes } from '@sriov-dra/k8s';
import type { SliceDevice } from './slice-device.ts';
import { type ExistingSlice, type ResourceSliceObject, type SliceOwner, existingSliceSchema, planResourceSlices } from './slice-plan.ts';

export interface PublishResult {
  readonly generation: number;
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
}

/** Every ResourceSlice of `driver` on the node, read live: the plan is computed against the server's state. */
async function listOwnSlices(client: KubeClient, driver: string, nodeName: string, signal?: AbortSignal): Promise<ExistingSlice[]> {
  const list = await client.list(resourceTypes.resourceSlice, { fieldSelector: `spec.nodeName=${nodeName},spec.driver=${driver}`, signal });
  return list.items.map((item) => {
    const parsed = existingSliceSchema.safeParse(item);
    if (!parsed.success) {
      throw new SriovDraError('InvalidApiObject', `${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        object: { kind: 'ResourceSlice', name: item.metadata.name },
      });
    }
    return parsed.data;
  });
}

/** Labels are added key by key so labels written by others survive; spec and owner are ours entirely. */
function updateOps(existing: ExistingSlice, desired: ResourceSliceObject): JsonPatchOp[] {
  const labels: JsonPatchOp[] =
    existing.metadata.labels === undefined
      ? [{ op: 'add', path: '/metadata/labels', value: desired.metadata.labels }]
      : Object.entries(desired.metadata.labels).map(([key, value]) => ({ op: 'add', path: pointer('metadata', 'labels', key), value }));
  return [
    ...identityPreconditions(existing.metadata),
    ...labels,
    { op: 'add', path: '/metadata/ownerReferences', value: desired.metadata.ownerReferences },
    { op: 'replace', path: '/spec', value: desired.spec },
  ];
}

/**
 * Brings the node's ResourceSlices to exactly `devices` and reports the writes made; nothing is written
 * when the stored slices already match. Obsolete slices go first (a withdrawn device must stop being
 * offered even if a later write fails), then updates, then creates. Every update and delete is pinned to
 * the UID and resourceVersion it was planned from, so a concurrent writer makes this pass fail with a
 * conflict and the caller's retry plans again from a fresh list.
 */
export async function publishResourceSlices(
  client: KubeClient,
  driver: string,
  owner: SliceOwner,
  devices: readonly SliceDevice[],
  signal?: AbortSignal,
): Promise<PublishResult> {
  const existing = await listOwnSlices(client, driver, owner.nodeName, signal);
  const plan = planResourceSlices(driver, owner, devices, existing);
  for (const slice of plan.deletes) {
    try {
      await client.delete(
        resourceTypes.resourceSlice,
        { name: slice.metadata.name },
        { uid: slice.metadata.uid, resourceVersion: slice.metadata.resourceVersion, signal },
      );
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
    }
  }
  for (const { existing: stored, desired } of plan.updates) {
    await client.patch(resourceTypes.resourceSlice, { name: stored.metadata.name }, updateOps(stored, desired), contentTypes.jsonPatch, { signal });
  }
  for (const slice of plan.creates) await client.create(resourceTypes.resourceSlice, { ...slice }, { signal });
  return { generation: plan.generation, created: plan.creates.length, updated: plan.updates.length, deleted: plan.deletes.length };
}
