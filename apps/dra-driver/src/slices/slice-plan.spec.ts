import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import type { SliceDevice } from './slice-device.ts';
import { resourceSliceName } from './slice-name.ts';
import { type ExistingSlice, MAX_DEVICES_PER_SLICE, type ResourceSliceObject, chunkDevices, planResourceSlices } from './slice-plan.ts';

const owner = { nodeName: 'worker-a', nodeUID: '6f1c2a6e-0000-4000-8000-000000000001' };

function devices(count: number, attribute = 'x'): SliceDevice[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `dev-${String(index).padStart(4, '0')}`,
    attributes: { [`${DRIVER_NAME}/tag`]: { string: attribute } },
    capacity: {},
  }));
}

let uid = 0;
/** What the API server stores for a written slice. */
function stored(object: ResourceSliceObject): ExistingSlice {
  uid += 1;
  return JSON.parse(JSON.stringify({ ...object, metadata: { ...object.metadata, uid: `uid-${uid}`, resourceVersion: String(uid) } })) as ExistingSlice;
}

/** Applies a plan the way the publisher does, returning the stored slices afterwards. */
function apply(existing: readonly ExistingSlice[], list: readonly SliceDevice[]): { slices: ExistingSlice[]; writes: number; generation: number } {
  const plan = planResourceSlices(DRIVER_NAME, owner, list, existing);
  const deleted = new Set(plan.deletes.map((slice) => slice.metadata.uid));
  const updated = new Map(plan.updates.map(({ existing: slice, desired }) => [slice.metadata.uid, stored(desired)]));
  const slices = [
    ...existing.filter((slice) => !deleted.has(slice.metadata.uid)).map((slice) => updated.get(slice.metadata.uid) ?? slice),
    ...plan.creates.map(stored),
  ];
  return { slices, writes: plan.creates.length + plan.updates.length + plan.deletes.length, generation: plan.generation };
}

describe('chunkDevices', () => {
  it.each([
    [0, []],
    [1, [1]],
    [128, [128]],
    [129, [128, 1]],
    [256, [128, 128]],
  ])('%i devices make slices of %j', (count, sizes) => {
    expect(chunkDevices(devices(count)).map((chunk) => chunk.length)).toEqual(sizes);
  });

  it('orders devices by name, whatever the input order', () => {
    const list = devices(130);
    expect(chunkDevices([...list].reverse())).toEqual(chunkDevices(list));
    expect(chunkDevices(list)[1]?.[0]?.name).toBe('dev-0128');
  });
});

describe('planResourceSlices', () => {
  it.each([0, 1, 128, 129, 256])('publishes %i devices in ceil(n/128) slices that name the pool size', (count) => {
    const plan = planResourceSlices(DRIVER_NAME, owner, devices(count), []);
    expect(plan.creates).toHaveLength(Math.ceil(count / MAX_DEVICES_PER_SLICE));
    expect(plan.updates).toEqual([]);
    expect(plan.deletes).toEqual([]);
    for (const [index, slice] of plan.creates.entries()) {
      expect(slice.metadata.name).toBe(resourceSliceName('worker-a', DRIVER_NAME, index));
      expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'worker-a', uid: owner.nodeUID, controller: true }]);
      expect(slice.spec).toMatchObject({
        driver: DRIVER_NAME,
        nodeName: 'worker-a',
        pool: { name: 'worker-a', generation: 1, resourceSliceCount: plan.creates.length },
      });
    }
  });

  it('writes nothing when the stored slices already publish the devices', () => {
    const first = apply([], devices(200));
    const again = apply(first.slices, devices(200));
    expect(again).toEqual({ slices: first.slices, writes: 0, generation: 1 });
  });

  it('ignores key order and fields it does not own', () => {
    const first = apply([], devices(3));
    const decorated = first.slices.map((slice) => ({
      ...slice,
      metadata: { ...slice.metadata, labels: { other: 'kept', ...slice.metadata.labels }, managedFields: [] },
      spec: { devices: slice.spec.devices, pool: slice.spec.pool, nodeName: slice.spec.nodeName, driver: slice.spec.driver },
    }));
    expect(apply(decorated, devices(3)).writes).toBe(0);
  });

  it.each<[string, (list: SliceDevice[]) => SliceDevice[]]>([
    ['an attribute changes', (list) => list.map((device, index) => (index === 140 ? { ...device, attributes: {} } : device))],
    ['a device is added', (list) => [...list, { name: 'dev-9999', attributes: {}, capacity: {} }]],
    ['a device is withdrawn', (list) => list.slice(1)],
    ['a device without attributes is withdrawn', (list) => list.filter((device) => device.name !== 'dev-0000')],
  ])('bumps the generation of every slice when %s', (_case, change) => {
    const list = devices(200);
    list[0] = { name: 'dev-0000', attributes: {}, capacity: {} };
    const first = apply([], list);
    const next = apply(first.slices, change(list));
    expect(next.generation).toBe(2);
    expect(next.writes).toBe(2);
    expect(next.slices.map((slice) => slice.spec.pool.generation)).toEqual([2, 2]);
  });

  it('shrinks from two slices to one: deletes the second, rewrites the first with count 1', () => {
    const first = apply([], devices(129));
    const plan = planResourceSlices(DRIVER_NAME, owner, devices(128), first.slices);
    expect(plan.deletes.map((slice) => slice.metadata.name)).toEqual([resourceSliceName('worker-a', DRIVER_NAME, 1)]);
    expect(plan.updates.map(({ desired }) => desired.spec.pool)).toEqual([{ name: 'worker-a', generation: 2, resourceSliceCount: 1 }]);
    expect(plan.creates).toEqual([]);
  });

  it('withdrawing every device deletes every slice', () => {
    const first = apply([], devices(5));
    const plan = planResourceSlices(DRIVER_NAME, owner, [], first.slices);
    expect(plan.deletes).toHaveLength(1);
    expect(plan.creates.length + plan.updates.length).toBe(0);
  });

  it('repairs a pool left with mixed generations, continuing from the highest', () => {
    const first = apply([], devices(200));
    const mixed = first.slices.map((slice, index) =>
      index === 1 ? { ...slice, spec: { ...slice.spec, pool: { ...slice.spec.pool, generation: 7 } } } : slice,
    );
    const next = apply(mixed, devices(200));
    expect(next.generation).toBe(8);
    expect(next.writes).toBe(2);
  });

  it('deletes slices of this driver and node that it did not name, and replaces a slice of another pool', () => {
    const first = apply([], devices(1));
    const [ours] = first.slices;
    if (ours === undefined) throw new Error('no slice');
    const [desired] = planResourceSlices(DRIVER_NAME, owner, devices(1), []).creates;
    if (desired === undefined) throw new Error('no slice');
    const foreign = stored({ ...desired, metadata: { ...desired.metadata, name: 'generated-abcde' } });
    const otherPool = { ...ours, spec: { ...ours.spec, pool: { ...ours.spec.pool, name: 'other' } } };
    const plan = planResourceSlices(DRIVER_NAME, owner, devices(1), [otherPool, foreign]);
    expect(plan.deletes.map((slice) => slice.metadata.name).sort()).toEqual(['generated-abcde', ours.metadata.name].sort());
    expect(plan.creates.map((slice) => slice.metadata.name)).toEqual([ours.metadata.name]);
  });

  it('takes over a slice owned by a previous Node object of the same name', () => {
    const first = apply([], devices(1));
    const plan = planResourceSlices(DRIVER_NAME, { ...owner, nodeUID: 'new-uid' }, devices(1), first.slices);
    expect(plan.updates.map(({ desired }) => desired.metadata.ownerReferences[0].uid)).toEqual(['new-uid']);
  });
});

describe('resourceSliceName', () => {
  it('is <node>-<driver>-<index>', () => {
    expect(resourceSliceName('worker-a', DRIVER_NAME, 3)).toBe(`worker-a-${DRIVER_NAME}-3`);
  });

  it('stays within 253 characters and distinct for long node names', () => {
    const long = `${'n'.repeat(200)}.example.com`;
    const other = `${'n'.repeat(200)}.example.org`;
    const name = resourceSliceName(long, DRIVER_NAME, 1);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    expect(name).not.toBe(resourceSliceName(other, DRIVER_NAME, 1));
  });
});
