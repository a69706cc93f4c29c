import { MANAGED_BY_VALUE, labels as contractLabels } from '@sriov-dra/contract';
import { z } from 'zod';
import type { SliceDevice } from './slice-device.ts';
import { resourceSliceName } from './slice-name.ts';

/** resource.k8s.io/v1 accepts at most this many devices in one ResourceSlice. */
export const MAX_DEVICES_PER_SLICE = 128;

/** The Node that owns the pool: its slices carry its name and are garbage-collected with it. */
export interface SliceOwner {
  readonly nodeName: string;
  readonly nodeUID: string;
}

/** The fields of a stored ResourceSlice the planner compares; everything else is ignored. */
export const existingSliceSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    uid: z.string(),
    resourceVersion: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
    ownerReferences: z.array(z.looseObject({})).optional(),
  }),
  spec: z.looseObject({
    driver: z.string(),
    nodeName: z.string().optional(),
    pool: z.looseObject({ name: z.string(), generation: z.number(), resourceSliceCount: z.number() }),
    devices: z.array(z.looseObject({ name: z.string(), attributes: z.unknown().optional(), capacity: z.unknown().optional() })).optional(),
  }),
});

export type ExistingSlice = z.infer<typeof existingSliceSchema>;

/** A ResourceSlice as the publisher writes it. */
export interface ResourceSliceObject {
  readonly apiVersion: 'resource.k8s.io/v1';
  readonly kind: 'ResourceSlice';
  readonly metadata: {
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly ownerReferences: readonly [{ apiVersion: 'v1'; kind: 'Node'; name: string; uid: string; controller: true }];
  };
  readonly spec: {
    readonly driver: string;
    readonly nodeName: string;
    readonly pool: { readonly name: string; readonly generation: number; readonly resourceSliceCount: number };
    readonly devices: readonly Record<string, unknown>[];
  };
}

export interface SlicePlan {
  /** The pool generation after the plan is applied; unchanged when there is nothing to write. */
  readonly generation: number;
  readonly creates: readonly ResourceSliceObject[];
  readonly updates: readonly { readonly existing: ExistingSlice; readonly desired: ResourceSliceObject }[];
  readonly deletes: readonly ExistingSlice[];
}

/** Devices in name order, at most MAX_DEVICES_PER_SLICE per slice; no devices make no slices. */
export function chunkDevices(devices: readonly SliceDevice[]): SliceDevice[][] {
  const ordered = [...devices].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const chunks: SliceDevice[][] = [];
  for (let start = 0; start < ordered.length; start += MAX_DEVICES_PER_SLICE) chunks.push(ordered.slice(start, start + MAX_DEVICES_PER_SLICE));
  return chunks;
}

function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A device's wire form; empty maps are omitted, as the API server stores them. */
function wireDevice(device: SliceDevice): Record<string, unknown> {
  return {
    name: device.name,
    ...(Object.keys(device.attributes).length === 0 ? {} : { attributes: sortedRecord(device.attributes) }),
    ...(Object.keys(device.capacity).length === 0 ? {} : { capacity: sortedRecord(device.capacity) }),
  };
}

function desiredSlices(driver: string, owner: SliceOwner, devices: readonly SliceDevice[], generation: number): ResourceSliceObject[] {
  const chunks = chunkDevices(devices);
  return chunks.map((chunk, index) => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: {
      name: resourceSliceName(owner.nodeName, driver, index),
      labels: { [contractLabels.managedBy]: MANAGED_BY_VALUE, [contractLabels.nodeUID]: owner.nodeUID },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: owner.nodeName, uid: owner.nodeUID, controller: true }],
    },
    spec: {
      driver,
      nodeName: owner.nodeName,
      pool: { name: owner.nodeName, generation, resourceSliceCount: chunks.length },
      devices: chunk.map(wireDevice),
    },
  }));
}

/** JSON with object keys sorted, so stored and desired forms compare regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'object' && member !== null && !Array.isArray(member) ? sortedRecord(member as Record<string, unknown>) : member,
  );
}

/** The parts of a stored slice the publisher owns, in the shape it writes them. */
function ownedPart(slice: ExistingSlice | ResourceSliceObject, desired: ResourceSliceObject): string {
  const ownerReference = desired.metadata.ownerReferences[0];
  const owned = (slice.metadata.ownerReferences ?? []).some(
    (reference) =>
      reference['apiVersion'] === 'v1' &&
      reference['kind'] === 'Node' &&
      reference['name'] === ownerReference.name &&
      reference['uid'] === ownerReference.uid &&
      reference['controller'] === true,
  );
  const labels = Object.fromEntries(Object.keys(desired.metadata.labels).map((key) => [key, slice.metadata.labels?.[key]]));
  const devices = (slice.spec.devices ?? []).map((device) => ({ name: device.name, attributes: device.attributes ?? {}, capacity: device.capacity ?? {} }));
  return canonical({ owned, labels, driver: slice.spec.driver, nodeName: slice.spec.nodeName, pool: slice.spec.pool, devices });
}

/**
 * What to write so the node's slices publish exactly `devices` (§12.2.5 point 5): one pool named after the
 * node, devices in name order, 128 per slice. When the stored slices already say exactly that, under one
 * generation, nothing is written. Any difference — a device added, changed or withdrawn, a slice missing,
 * extra or of a mixed generation — rewrites every slice of the pool under the next generation, so a
 * consumer never mixes old and new content. `existing` are the slices of this driver on this node.
 */
export function planResourceSlices(driver: string, owner: SliceOwner, devices: readonly SliceDevice[], existing: readonly ExistingSlice[]): SlicePlan {
  const current = existing.reduce((highest, slice) => Math.max(highest, slice.spec.pool.generation), 0);
  const byName = new Map(existing.map((slice) => [slice.metadata.name, slice]));
  const unchanged = desiredSlices(driver, owner, devices, current);
  const same =
    existing.length === unchanged.length &&
    unchanged.every((desired) => {
      const stored = byName.get(desired.metadata.name);
      return stored !== undefined && ownedPart(stored, desired) === ownedPart(desired, desired);
    });
  if (same) return { generation: current, creates: [], updates: [], deletes: [] };

  const generation = current + 1;
  const desired = desiredSlices(driver, owner, devices, generation);
  const names = new Set(desired.map((slice) => slice.metadata.name));
  const updates: { existing: ExistingSlice; desired: ResourceSliceObject }[] = [];
  const creates: ResourceSliceObject[] = [];
  for (const slice of desired) {
    const stored = byName.get(slice.metadata.name);
    // spec.pool.name is immutable; a stored slice of another pool under our name must be replaced.
    if (stored !== undefined && stored.spec.pool.name === slice.spec.pool.name) updates.push({ existing: stored, desired: slice });
    else creates.push(slice);
  }
  const deletes = existing.filter((slice) => !names.has(slice.metadata.name) || slice.spec.pool.name !== owner.nodeName);
  return { generation, creates, updates, deletes };
}
