// The repair worker (§8.3) of a freshly started driver, on a real API server with the driver's RBAC and
// the API server's audit log: what a pass reads on a healthy node, what it repairs from the frozen record
// alone, which releases it finishes, and where it must stop without releasing anything.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import { DRIVER_NAME, annotations } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { createRoleBinding, waitFor } from '@sriov-dra/k8s/testing';
import type { ClaimRecord } from '../../src/checkpoint/checkpoint-record.ts';
import { CheckpointStore } from '../../src/checkpoint/checkpoint-store.ts';
import type { RepairPass, RepairWorker } from '../../src/managed/repair-worker.ts';
import {
  DEVICES,
  DRIVER_USER,
  INJECTED_WRITE_FAILURE,
  type ManagedNode,
  NS,
  type NodeState,
  WatchedLocks,
  createSource,
  createWorkload,
  podSelections,
  useManagedNode,
} from './managed-node.ts';

const signal = new AbortController().signal;

let host: ManagedNode;
let admin: KubeClient;

useManagedNode((started) => {
  host = started;
  admin = started.admin;
});

jest.setTimeout(60_000);

let nextPod = 0;
async function prepared(claims = 1): Promise<{ name: string; refs: { namespace: string; name: string; uid: string }[] }> {
  nextPod += 1;
  const name = `repair-${nextPod}`;
  const names = Array.from({ length: claims }, (_, index) => `${name}-${index}`);
  const workload = await createWorkload(admin, name, Object.fromEntries(names.map((claim, index) => [claim, [DEVICES[index] ?? '']])));
  const refs = names.map((claim) => workload.ref(claim));
  const preparer = await host.open();
  for (const ref of refs) await preparer.prepare(ref, signal);
  return { name, refs };
}

async function release(refs: readonly { namespace: string; name: string; uid: string }[]): Promise<void> {
  const preparer = await host.open();
  for (const ref of refs) await preparer.unprepare(ref, signal);
}

const summary = (pass: RepairPass) => ({
  healthy: pass.healthy,
  repaired: pass.repaired,
  released: pass.released,
  stopped: Object.fromEntries(pass.stopped),
  failed: Object.fromEntries(pass.failed),
});

/** The shadows of Pod `name`'s claims (named `<name>-<index>`), so that what another test left does not count here. */
async function shadowsOf(name: string): Promise<NodeState['shadows']> {
  const state = await host.state(name);
  const own = new Set(state.bindings.filter((binding) => binding.claim.startsWith(`${name}-`)).map((binding) => binding.shadow));
  return state.shadows.filter((shadow) => own.has(shadow.name));
}

const phases = async (): Promise<(string | undefined)[]> =>
  (await host.records()).flatMap((record: ClaimRecord) => record.devices.map((device) => device.managedBinding?.phase));

describe('repair worker', () => {
  it('verifies a healthy node first with one Node GET and one GET per Pod and per claim, then from its watches alone, writing nothing', async () => {
    const { name, refs } = await prepared(2);
    const repair = await host.repairWorker();
    const passes: RepairPass[] = [];
    const first = await host.driverRequests(async () => {
      passes.push(await repair.pass());
    });
    const second = await host.driverRequests(async () => {
      passes.push(await repair.pass());
    });
    expect(passes.map(summary)).toEqual([
      { healthy: 2, repaired: 0, released: 0, stopped: {}, failed: {} },
      { healthy: 2, repaired: 0, released: 0, stopped: {}, failed: {} },
    ]);
    expect([first, second]).toEqual([{ 'get nodes': 1, 'get pods': 1, 'get resourceclaims': 2 }, {}]);
    expect((await podSelections(admin, name)).networks).toHaveLength(2);
    await release(refs);
  });

  it('reads the Pod and claim again when a kubelet call held the Pod meanwhile: a Pod that started terminating gets nothing back', async () => {
    const { name, refs } = await prepared();
    const pod = await admin.get(resourceTypes.pod, { namespace: NS, name });
    // Forward work for the pass: the Pod's selections are gone.
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name },
      { metadata: { annotations: { [annotations.networks]: null, [annotations.managedNetworks]: null } } },
      contentTypes.mergePatch,
    );
    const locks = new WatchedLocks();
    let unlock!: () => void;
    const held = locks.run(pod.metadata.uid, () => new Promise<void>((resolve) => (unlock = resolve)));
    const pass = (await host.repairWorker({ podLocks: locks })).pass();
    await locks.reached(2);
    await admin.patch(resourceTypes.pod, { namespace: NS, name }, { metadata: { finalizers: ['example.com/hold'] } }, contentTypes.mergePatch);
    await admin.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
    unlock();
    await held;
    expect(summary(await pass)).toMatchObject({ repaired: 0, stopped: { PodTerminating: 1 }, failed: {} });
    expect((await podSelections(admin, name)).networks).toBeUndefined();
    await release(refs);
    await admin.patch(resourceTypes.pod, { namespace: NS, name }, { metadata: { finalizers: null } }, contentTypes.mergePatch);
  });

  it('puts back removed selections and a stripped finalizer from the record alone', async () => {
    const { name, refs } = await prepared();
    const before = await host.state(name);
    const shadow = (await shadowsOf(name))[0]?.name ?? '';
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      contentTypes.jsonPatch,
    );
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name },
      { metadata: { annotations: { [annotations.networks]: null, [annotations.managedNetworks]: null } } },
      contentTypes.mergePatch,
    );
    // Deleting the source shows the repair never reads it.
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-a' });
    try {
      expect(summary(await (await host.repairWorker()).pass())).toMatchObject({ healthy: 0, repaired: 1, failed: {} });
      expect(await host.state(name)).toEqual(before);
    } finally {
      await createSource(admin, 'rail-a', '192.0.2.0/24');
    }
    await release(refs);
  });

  it('adopts the shadows of a prepare that stopped before their UIDs were persisted, and makes the claim Ready', async () => {
    nextPod += 1;
    const name = `repair-${nextPod}`;
    const workload = await createWorkload(admin, name, { [`${name}-0`]: [DEVICES[0] ?? ''] });
    const ref = workload.ref(`${name}-0`);
    const failUIDs = (next: Readonly<Record<string, ClaimRecord>>): boolean =>
      next[ref.uid]?.devices.some((device) => device.managedBinding?.shadow.uid !== '') === true;
    await expect((await host.open({ failWrite: failUIDs })).prepare(ref, signal)).rejects.toMatchObject({ message: INJECTED_WRITE_FAILURE });
    const created = await shadowsOf(name);

    expect(summary(await (await host.repairWorker()).pass())).toMatchObject({ repaired: 1, failed: {} });
    const state = await host.state(name);
    expect(state.bindings.map((binding) => [binding.phase, binding.shadowUID])).toEqual([['Ready', created[0]?.uid]]);
    expect(state.selections === 'no Pod' ? undefined : state.selections.registry.map((entry) => entry['uid'])).toEqual([created[0]?.uid]);
    await release([ref]);
  });

  it.each([
    ['Deleting', 'delete'],
    ['ReleaseComplete', 'patch'],
  ])('finishes a release the kubelet started that stopped at %s', async (phase, missingVerb) => {
    const limitedUser = `repair-no-nad-${missingVerb}`;
    await admin.create(resourceTypes.clusterRole, {
      metadata: { name: limitedUser },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'patch'] },
        {
          apiGroups: ['k8s.cni.cncf.io'],
          resources: ['network-attachment-definitions'],
          verbs: ['get', 'list', 'create', 'patch', 'delete'].filter((verb) => verb !== missingVerb),
        },
      ],
    });
    await createRoleBinding(admin, {
      metadata: { name: limitedUser },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: limitedUser },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: limitedUser }],
    });
    const limited = host.cp.clientFor(limitedUser);
    const { name, refs } = await prepared();
    const [ref] = refs;
    if (ref === undefined) throw new Error('no claim');
    await expect((await host.open({ client: limited })).unprepare(ref, signal)).rejects.toMatchObject({ code: 'ApiForbidden' });
    expect(await phases()).toEqual([phase]);
    expect(summary(await (await host.repairWorker()).pass())).toMatchObject({ released: 1, failed: {} });
    expect(await host.state(name)).toMatchObject({ bindings: [], shadows: [], cdi: [], drivers: host.initialDrivers });
  });

  it('stops, releasing nothing, for a terminating Pod, a gone Pod, a dropped reservation and a replaced Node', async () => {
    const terminating = await prepared();
    await admin.delete(resourceTypes.pod, { namespace: NS, name: terminating.name });
    const gone = await prepared();
    await admin.delete(resourceTypes.pod, { namespace: NS, name: gone.name }, { gracePeriodSeconds: 0 });
    const moved = await prepared();
    // The allocation goes with the reservation, as the resourceclaim controller deallocates a claim whose
    // last consumer left: an allocated claim of a bound Pod would be reserved for it again by that controller.
    await admin.patch(
      resourceTypes.resourceClaim,
      { namespace: NS, name: moved.refs[0]?.name ?? '', subresource: 'status' },
      [
        { op: 'remove', path: '/status/reservedFor' },
        { op: 'remove', path: '/status/allocation' },
      ],
      contentTypes.jsonPatch,
    );
    const before = await host.records();

    expect(summary(await (await host.repairWorker()).pass())).toEqual({
      healthy: 0,
      repaired: 0,
      released: 0,
      stopped: { PodTerminating: 1, PodGone: 1, ReservationChanged: 1 },
      failed: {},
    });
    expect(summary(await (await host.repairWorker({ nodeUID: '00000000-0000-4000-8000-000000000000' })).pass()).stopped).toEqual({ NodeReplaced: 3 });
    expect(await host.records()).toEqual(before);
    await release([...terminating.refs, ...gone.refs, ...moved.refs]);
  });

  it('copies what Multus reported into the claim’s status, once', async () => {
    const { name, refs } = await prepared();
    const [ref] = refs;
    if (ref === undefined) throw new Error('no claim');
    const [shadow] = await shadowsOf(name);
    // This node's driver user is not a ServiceAccount bound to a Pod on the node, so the chart's
    // "associated-node" grant cannot apply; a node-independent one stands in (the chart's own grant is
    // exercised by the whole-driver test, which runs on such a token).
    await admin.create(resourceTypes.clusterRole, {
      metadata: { name: 'claim-status-any-node' },
      rules: [{ apiGroups: ['resource.k8s.io'], resources: ['resourceclaims/driver'], resourceNames: [DRIVER_NAME], verbs: ['arbitrary-node:patch'] }],
    });
    await createRoleBinding(admin, {
      metadata: { name: 'claim-status-any-node' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'claim-status-any-node' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: DRIVER_USER }],
    });
    const networkStatus = [
      { name: 'cbr0', interface: 'eth0', ips: ['10.244.0.7'], default: true },
      { name: `${NS}/${shadow?.name ?? ''}`, interface: 'dra0', ips: ['192.0.2.10'], mac: '0a:58:c0:00:02:0a' },
    ];
    // Before Multus reports anything, nothing is written.
    expect((await (await host.repairWorker()).pass()).statusWritten).toBe(0);
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name },
      { metadata: { annotations: { 'k8s.v1.cni.cncf.io/network-status': JSON.stringify(networkStatus) } } },
      contentTypes.mergePatch,
    );
    const reported = await (await host.repairWorker()).pass();
    expect([reported.statusWritten, Object.fromEntries(reported.failed)]).toEqual([1, {}]);
    const claim = await admin.get<KubeObject & { status?: { devices?: Record<string, unknown>[] } }>(resourceTypes.resourceClaim, {
      namespace: NS,
      name: ref.name,
    });
    expect(claim.status?.devices?.map((entry) => [entry['device'], entry['networkData']])).toEqual([
      [DEVICES[0], { interfaceName: 'dra0', ips: ['192.0.2.10/24'], hardwareAddress: '0a:58:c0:00:02:0a' }],
    ]);
    // Said once: the next pass finds the claim saying it already.
    expect((await (await host.repairWorker()).pass()).statusWritten).toBe(0);
    expect((await admin.get(resourceTypes.resourceClaim, { namespace: NS, name: ref.name })).metadata.resourceVersion).toBe(claim.metadata.resourceVersion);
    await release(refs);
  });

  it('reports a shadow deleted while its Pod runs and never recreates it', async () => {
    const { name, refs } = await prepared();
    const [shadow] = await shadowsOf(name);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow?.name ?? '' });
    expect(summary(await (await host.repairWorker()).pass())).toMatchObject({ repaired: 0, failed: { ShadowDeletionPending: 1 } });
    const state = await host.state(name);
    expect(state.shadows.find((found) => found.name === shadow?.name)).toEqual({ ...shadow, deleting: true });
    expect(state.bindings.filter((binding) => binding.claim === refs[0]?.name).map((binding) => binding.phase)).toEqual(['Ready']);
    await release(refs);
  });
});

describe('orphans', () => {
  it('reports the shadows no checkpoint record accounts for, and leaves them protected', async () => {
    const { name, refs } = await prepared();
    const [shadow] = await shadowsOf(name);
    // The record is lost (a state directory restored from an old backup): the shadow stays the node's.
    const store = await CheckpointStore.open({ directory: host.pluginDir });
    await store.removeClaim(refs[0]?.uid ?? '');

    const pass = await (await host.repairWorker()).pass();
    expect(pass.orphans).toEqual([
      expect.objectContaining({ namespace: NS, name: shadow?.name, uid: shadow?.uid, reason: 'no-checkpoint-record', protectedByFinalizer: true }),
    ]);
    expect((await host.state(name)).shadows.find((found) => found.name === shadow?.name)).toEqual(shadow);

    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      contentTypes.jsonPatch,
    );
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow?.name ?? '' });
    for (const file of host.cdiFiles()) fs.rmSync(path.join(host.cdiRoot, file));
    expect((await (await host.repairWorker()).pass()).orphans).toEqual([]);
  });
});

describe('a pass that cannot start', () => {
  /** A user with the driver's reads less those `refused` leaves out, as a ClusterRole the test can widen. */
  async function readerWithout(user: string, refused: { readonly nodes?: readonly string[]; readonly nads?: readonly string[] }) {
    const rules = (without: typeof refused) => [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'].filter((verb) => !(without.nodes ?? []).includes(verb)) },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] },
      {
        apiGroups: ['k8s.cni.cncf.io'],
        resources: ['network-attachment-definitions'],
        verbs: ['get', 'list', 'watch'].filter((verb) => !(without.nads ?? []).includes(verb)),
      },
    ];
    await admin.create(resourceTypes.clusterRole, { metadata: { name: user }, rules: rules(refused) });
    await createRoleBinding(admin, {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    return {
      client: host.cp.clientFor(user),
      grantAll: () => admin.patch(resourceTypes.clusterRole, { name: user }, { rules: rules({}) }, contentTypes.mergePatch),
    };
  }

  /** Starts `worker` (its period a minute), checks that no pass completes while `reader` is refused, then grants all and waits for one. */
  async function completesOnceGranted(worker: RepairWorker, reader: { grantAll: () => Promise<unknown> }): Promise<void> {
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(worker.passes).toBe(0);
      await reader.grantAll();
      await waitFor('a pass to complete', () => Promise.resolve(worker.passes === 1), { timeoutMs: 20_000 });
    } finally {
      await worker.stop();
    }
  }

  it('is retried with backoff, not a whole period later', async () => {
    const { refs } = await prepared();
    // The live Node read a checkpointed claim needs is refused: the pass rejects, and is retried from half a second.
    const reader = await readerWithout('repair-without-node-get', { nodes: ['get'] });
    await completesOnceGranted(await host.repairWorker({ client: reader.client }), reader);
    await release(refs);
  });

  it('does not hold up stopping while it waits for its watches', async () => {
    const reader = await readerWithout('repair-stopped-unlisted', { nads: ['list', 'watch'] });
    const worker = await host.repairWorker({ client: reader.client, listed: false });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The wait is bounded by the period, a minute: twice what this test may take.
    await worker.stop();
    expect(worker.passes).toBe(0);
  }, 30_000);

  it('waits for its watches to list, which retry with backoff', async () => {
    // The shadow watch cannot list: no pass can start until it has.
    const reader = await readerWithout('repair-without-list', { nads: ['list', 'watch'] });
    await completesOnceGranted(await host.repairWorker({ client: reader.client, listed: false }), reader);
  });
});
