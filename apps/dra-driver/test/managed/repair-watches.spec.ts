// The repair worker (§8.3) between passes, on a real API server with the driver's RBAC and the API
// server's audit log: once a pass has verified a node's bindings live, the next ones see them through the
// watches of the node's Pods, its shadows and its Node, and make no request while nothing changes; a change
// those watches show is read live before anything is written, and a change they cannot show (a claim's
// reservation) still never leads to a write without a live read.
import { describe, expect, it, jest } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import type { RepairPass, RepairWorker } from '../../src/managed/repair-worker.ts';
import { type ManagedNode, NODE, NS, createWorkload, listShadows, podSelections, useManagedNode } from './managed-node.ts';

const signal = new AbortController().signal;
/** Healthy Pods of one claim × two VFs each: 50 bindings. */
const HEALTHY_PODS = 25;
/** How long a change may take to reach the watches: generous for a loaded machine. */
const WATCH_LATENCY = { timeoutMs: 20_000 };

let host: ManagedNode;
let admin: KubeClient;

// 64 VFs: the first eight are the managed node's usual ones.
useManagedNode(
  (started) => {
    host = started;
    admin = started.admin;
  },
  uniformLayout({ pfs: 1, vfsPerPf: 64 }),
);

jest.setTimeout(120_000);

/** Devices no earlier test of this file took: two per Pod. */
let nextDevice = 0;
const twoDevices = (): string[] => {
  const devices = host.devices.slice(nextDevice, nextDevice + 2);
  if (devices.length < 2) throw new Error(`the node has ${host.devices.length} VFs: too few for another Pod`);
  nextDevice += 2;
  return devices;
};

/** Pod `name`, bound to the node with one claim (`<name>-0`) of two VFs, prepared by the driver. */
async function prepared(name: string): Promise<{ namespace: string; name: string; uid: string }> {
  const workload = await createWorkload(admin, name, { [`${name}-0`]: twoDevices() });
  const ref = workload.ref(`${name}-0`);
  await (await host.open()).prepare(ref, signal);
  return ref;
}

const summary = (pass: RepairPass) => ({
  healthy: pass.healthy,
  repaired: pass.repaired,
  stopped: Object.fromEntries(pass.stopped),
  failed: Object.fromEntries(pass.failed),
});

/**
 * Runs passes until one finds something other than `healthy` healthy claims (the watches have shown the
 * change by then); that pass's summary and the driver's requests over all of them.
 */
async function passUntilChanged(repair: RepairWorker, healthy: number): Promise<{ pass: ReturnType<typeof summary>; requests: Record<string, number> }> {
  let changed: RepairPass | undefined;
  const requests = await host.driverRequests(() =>
    waitFor(
      'a pass to see the change',
      async () => {
        const pass = await repair.pass();
        if (pass.healthy === healthy && pass.repaired === 0 && pass.stopped.size === 0 && pass.failed.size === 0) return false;
        changed = pass;
        return true;
      },
      WATCH_LATENCY,
    ),
  );
  if (changed === undefined) throw new Error('no pass saw the change');
  return { pass: summary(changed), requests };
}

/** Runs passes until one makes no request: every binding on the node verified live again after a repair. */
async function settled(repair: RepairWorker): Promise<void> {
  await waitFor('a pass without requests', async () => Object.keys(await host.driverRequests(() => repair.pass())).length === 0, WATCH_LATENCY);
}

/** A worker whose first pass has verified every binding on the node live; with how many claims it found healthy. */
async function verifiedWorker(): Promise<{ repair: RepairWorker; healthy: number }> {
  const repair = await host.repairWorker();
  const first = await repair.pass();
  expect(summary(first)).toMatchObject({ repaired: 0, stopped: {}, failed: {} });
  return { repair, healthy: first.healthy };
}

describe('repair passes between changes', () => {
  it(`verify ${HEALTHY_PODS * 2} healthy bindings live once, then make no request at all while nothing changes`, async () => {
    for (let pod = 0; pod < HEALTHY_PODS; pod += 1) await prepared(`steady-${pod}`);
    const repair = await host.repairWorker();
    const passes: RepairPass[] = [];
    const requests: Record<string, number>[] = [];
    for (let pass = 0; pass < 4; pass += 1) {
      requests.push(
        await host.driverRequests(async () => {
          passes.push(await repair.pass());
        }),
      );
    }
    expect(passes.map(summary)).toEqual(Array.from({ length: 4 }, () => ({ healthy: HEALTHY_PODS, repaired: 0, stopped: {}, failed: {} })));
    expect(requests).toEqual([{ 'get nodes': 1, 'get pods': HEALTHY_PODS, 'get resourceclaims': HEALTHY_PODS }, {}, {}, {}]);
  });

  it('puts back a shadow’s stripped finalizer and a Pod’s removed selections, after reading the Node, Pod and claim live', async () => {
    await prepared('edited');
    const { repair, healthy } = await verifiedWorker();
    const shadowName = (await host.state('edited')).bindings.find((binding) => binding.claim === 'edited-0')?.shadow ?? '';
    const shadow = (await listShadows(admin)).get(shadowName);
    if (shadow === undefined) throw new Error('no shadow of Pod edited');
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow.metadata.name },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      contentTypes.jsonPatch,
    );
    const stripped = await passUntilChanged(repair, healthy);
    expect(stripped.pass).toEqual({ healthy: healthy - 1, repaired: 1, stopped: {}, failed: {} });
    // The forward sequence reads each recorded shadow live before it writes (the claim has two).
    expect(stripped.requests).toEqual({
      'get network-attachment-definitions': 2,
      'get nodes': 1,
      'get pods': 1,
      'get resourceclaims': 1,
      'patch network-attachment-definitions': 1,
    });
    expect((await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow.metadata.name })).metadata.finalizers).toEqual(
      shadow.metadata.finalizers,
    );

    await settled(repair);
    const before = await podSelections(admin, 'edited');
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'edited' },
      { metadata: { annotations: { [annotations.networks]: null, [annotations.managedNetworks]: null } } },
      contentTypes.mergePatch,
    );
    const removed = await passUntilChanged(repair, healthy);
    expect(removed.pass).toEqual({ healthy: healthy - 1, repaired: 1, stopped: {}, failed: {} });
    expect(removed.requests).toEqual({ 'get network-attachment-definitions': 2, 'get nodes': 1, 'get pods': 1, 'get resourceclaims': 1, 'patch pods': 1 });
    const after = await podSelections(admin, 'edited');
    expect([after.networks, after.registry]).toEqual([before.networks, before.registry]);
  });

  it('reads a Pod deleted or replaced by one on another node live, and stops without writing', async () => {
    const refs = [await prepared('deleted'), await prepared('replaced')];
    const { repair, healthy } = await verifiedWorker();
    await admin.delete(resourceTypes.pod, { namespace: NS, name: 'deleted' }, { gracePeriodSeconds: 0 });
    await admin.delete(resourceTypes.pod, { namespace: NS, name: 'replaced' }, { gracePeriodSeconds: 0 });
    await waitFor(
      'both Pods gone',
      async () => (await admin.list(resourceTypes.pod, { namespace: NS, fieldSelector: 'metadata.name=replaced' })).items.length === 0,
      WATCH_LATENCY,
    );
    await admin.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'replaced', namespace: NS },
        spec: { nodeName: `${NODE}-other`, containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
      },
      { namespace: NS },
    );
    const before = await host.records();
    let last: RepairPass | undefined;
    const requests = await host.driverRequests(() =>
      // The two deletions may reach the watch in different passes.
      waitFor(
        'both Pods stopped',
        async () => {
          last = await repair.pass();
          return [...last.stopped.values()].reduce((sum, count) => sum + count, 0) === 2;
        },
        WATCH_LATENCY,
      ),
    );
    expect(last === undefined ? undefined : summary(last)).toEqual({ healthy: healthy - 2, repaired: 0, stopped: { PodGone: 1, PodReplaced: 1 }, failed: {} });
    expect(Object.keys(requests).filter((request) => !request.startsWith('get '))).toEqual([]);
    expect(await host.records()).toEqual(before);
    const preparer = await host.open();
    for (const ref of refs) await preparer.unprepare(ref, signal);
  });

  it('never writes for a claim whose reservation changed unseen: the write path reads it live and stops', async () => {
    await prepared('unreserved');
    const { repair, healthy } = await verifiedWorker();
    // No watch shows a claim: the passes still find the Pod healthy, and make no request.
    await admin.patch(
      resourceTypes.resourceClaim,
      { namespace: NS, name: 'unreserved-0', subresource: 'status' },
      [
        { op: 'remove', path: '/status/reservedFor' },
        { op: 'remove', path: '/status/allocation' },
      ],
      contentTypes.jsonPatch,
    );
    const unseen = await host.driverRequests(async () => {
      expect(summary(await repair.pass())).toEqual({ healthy, repaired: 0, stopped: {}, failed: {} });
    });
    expect(unseen).toEqual({});
    // Forward work for the next pass: the Pod's selections are gone. The live claim stops it.
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'unreserved' },
      { metadata: { annotations: { [annotations.networks]: null, [annotations.managedNetworks]: null } } },
      contentTypes.mergePatch,
    );
    const stopped = await passUntilChanged(repair, healthy);
    expect(stopped.pass).toEqual({ healthy: healthy - 1, repaired: 0, stopped: { ReservationChanged: 1 }, failed: {} });
    expect(stopped.requests).toEqual({ 'get nodes': 1, 'get pods': 1, 'get resourceclaims': 1 });
    expect((await podSelections(admin, 'unreserved')).networks).toBeUndefined();
  });
});
