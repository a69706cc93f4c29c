// The failure-injection matrix of managed attachment (ARCHITECTURE.md, §17.2), on a real API server with the
// driver's own RBAC and the checkpoint on disk. Each row injects its fault the way it happens — a refused
// write by RBAC, a failed checkpoint write, an object changed by someone else — then checks the whole node
// state (checkpoint, shadows and finalizers, the Pod's selections, CDI specs, VF drivers) right after the
// fault and again after the retry. The faulty attempt runs in this process, where a fault can be injected
// into one write; every retry and release after it is a real restart: the driver as a process of its own
// (main.ts) over the same state directory, its startup repair pass included, called by the kubelet's own
// DRA client. No row may end with a leaked shadow, finalizer, Pod entry, CDI spec or VF binding.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations, isSriovDraError } from '@sriov-dra/contract';
import { type ApiRequest, KubeClient, type KubeObject, contentTypes, isApiError, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import { type TcpProxy, createRoleBinding, startTcpProxy, waitFor } from '@sriov-dra/k8s/testing';
import type { ClaimRecord } from '../../src/checkpoint/checkpoint-record.ts';
import { isHostOperationError } from '../../src/device/host-operation-error.ts';
import {
  ActingClient,
  DEVICES,
  type DriverProcess,
  INJECTED_WRITE_FAILURE,
  type ManagedNode,
  NAD_NAME_ATTRIBUTE,
  NS,
  type NodeState,
  type OpenOptions,
  VFS,
  type Workload,
  createSource,
  createWorkload,
  listShadows,
  podSelections,
  startManagedNode,
  vfConfig,
} from './managed-node.ts';

const signal = new AbortController().signal;

let host: ManagedNode;
let admin: KubeClient;

/** A driver identity with the chart's permissions less the given verbs on one resource. */
async function driverWithout(user: string, resource: 'pods' | 'network-attachment-definitions', verb: string): Promise<KubeClient> {
  const full: Record<string, { group: string; verbs: string[] }> = {
    pods: { group: '', verbs: ['get', 'patch'] },
    'network-attachment-definitions': { group: 'k8s.cni.cncf.io', verbs: ['get', 'list', 'create', 'patch', 'delete'] },
  };
  const rules = Object.entries(full).map(([name, { group, verbs }]) => ({
    apiGroups: [group],
    resources: [name],
    verbs: name === resource ? verbs.filter((candidate) => candidate !== verb) : verbs,
  }));
  await admin.create(resourceTypes.clusterRole, {
    metadata: { name: user },
    rules: [
      ...rules,
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] },
    ],
  });
  await createRoleBinding(admin, {
    metadata: { name: user },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  });
  return host.cp.clientFor(user);
}

/**
 * Runs `work` with a driver client whose answer to the first request `matches` selects is held back on the
 * network until the client's deadline ends the request; the server applies it all the same. Then the
 * connections flow again (the abandoned answer reaches no one), as after a brief network stall. Returns
 * the driver's requests the API server answered meanwhile (audit log).
 */
async function withHeldAnswer(matches: (request: ApiRequest) => boolean, work: (client: KubeClient) => Promise<unknown>): Promise<Record<string, number>> {
  const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(host.cp.server).port) });
  let release: (() => void) | undefined;
  const client = new ActingClient(host, matches, () => (release = proxy.hold()), {
    server: proxy.via(host.cp.server),
    requestTimeoutMs: 3_000,
    settled: () => release?.(),
  });
  try {
    const requests = await host.driverRequests(() => work(client));
    expect(client.acted).toBe(true);
    return requests;
  } finally {
    release?.();
    client.close();
    await proxy.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

const codeOf = (error: unknown): string | undefined => (isSriovDraError(error) ? error.code : undefined);

const isRecordOf =
  (claimUID: string, test: (record: ClaimRecord) => boolean) =>
  (next: Readonly<Record<string, ClaimRecord>>): boolean => {
    const record = next[claimUID];
    return record !== undefined && test(record);
  };

const phasesOf = (record: ClaimRecord): (string | undefined)[] => record.devices.map((device) => device.managedBinding?.phase);

/** What a node holds when nothing of the workload is left: its VFs back on the drivers they started with. */
const released = (): Omit<NodeState, 'selections'> => ({ bindings: [], shadows: [], cdi: [], drivers: host.initialDrivers });

const withoutSelections = (state: NodeState): Omit<NodeState, 'selections'> => ({
  bindings: state.bindings,
  shadows: state.shadows,
  cdi: state.cdi,
  drivers: state.drivers,
});

let nextPod = 0;
/** A Pod of its own with one claim of two VFs, so no row sees another row's objects. */
async function workload(
  annotationsOfPod: Record<string, string> = {},
  allocationConfig: readonly Record<string, unknown>[] = [],
): Promise<{ name: string; workload: Workload; ref: ReturnType<Workload['ref']> }> {
  nextPod += 1;
  const name = `row-${nextPod}`;
  const created = await createWorkload(admin, name, { [`${name}-nics`]: [DEVICES[0] ?? '', DEVICES[1] ?? ''] }, annotationsOfPod, allocationConfig);
  return { name, workload: created, ref: created.ref(`${name}-nics`) };
}

async function stripFinalizerAndDelete(name: string): Promise<void> {
  await admin.patch(
    resourceTypes.networkAttachmentDefinition,
    { namespace: NS, name },
    [{ op: 'remove', path: '/metadata/finalizers' }],
    contentTypes.jsonPatch,
  );
  await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name });
}

/** A prepared claim whose shadows exist but whose checkpoint never learnt their UIDs (the write failed). */
async function shadowsWithoutUIDs(): Promise<{ row: Awaited<ReturnType<typeof workload>>; created: Awaited<ReturnType<typeof listShadows>> }> {
  const row = await workload();
  const failUIDs = isRecordOf(row.ref.uid, (record) => record.devices.some((device) => device.managedBinding?.shadow.uid !== ''));
  expect(await failure((await host.open({ failWrite: failUIDs })).prepare(row.ref, signal))).toMatchObject({ message: INJECTED_WRITE_FAILURE });
  const created = await listShadows(admin);
  expect(created.size).toBe(2);
  expect((await host.state(row.name)).bindings.map((binding) => binding.shadowUID)).toEqual(['', '']);
  return { row, created };
}

let driver: DriverProcess | undefined;

/**
 * The driver after a restart: a new process on the same state directory, started on first use in a
 * test and stopped after it. Its startup repair pass runs before the kubelet's call reaches it.
 */
async function restarted(): Promise<DriverProcess> {
  driver ??= await host.restart();
  return driver;
}

/** The kubelet's unprepare on the restarted driver; the whole node must then be clean. */
async function releaseThroughKubelet(row: { name: string; ref: ReturnType<Workload['ref']> }): Promise<void> {
  expect(await (await restarted()).unprepare(row.ref)).toBe('');
  const state = await host.state(row.name);
  expect(withoutSelections(state)).toEqual(released());
  if (state.selections !== 'no Pod') expect(state.selections).toEqual({ networks: undefined, registry: [] });
}

beforeAll(async () => {
  host = await startManagedNode();
  admin = host.admin;
  await createSource(admin, 'rail-a', '192.0.2.0/24');
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: 'macvlan-net', namespace: NS },
      spec: { config: '{"cniVersion":"1.0.0","name":"macvlan-net","type":"macvlan","master":"eth0","ipam":{"type":"host-local","subnet":"10.9.0.0/24"}}' },
    },
    { namespace: NS },
  );
}, 180_000);

afterEach(async () => {
  await driver?.stop();
  driver = undefined;
});

afterAll(async () => {
  await host.stop();
});

jest.setTimeout(60_000);

describe('render and validation, before any hardware change', () => {
  it.each([
    ['a device whose attributes and VfConfig name no template', { attributesOf: () => ({}) }, [], 'MissingNetworkTemplate'],
    ['a malformed template attribute', { attributesOf: () => ({ [NAD_NAME_ATTRIBUTE]: { int: 3 } }) }, [], 'InvalidNetAttachDefReference'],
    ['a template whose CNI plugin is not sriov', { sourceOf: () => 'macvlan-net' }, [], 'UnsupportedCniTopology'],
    // The claim's VfConfig names a valid template: only the eligibility gate (§12.2.5 step 4) stands
    // between a stale allocation and that fallback.
    ['a device this node does not publish', { attributesOf: () => undefined }, [vfConfig({ netAttachDefName: 'rail-a' })], 'DeviceNotEligible'],
  ] satisfies [string, OpenOptions, Record<string, unknown>[], string][])('refuses %s, changing nothing', async (_case, options, config, code) => {
    const row = await workload({}, config);
    const before = await podSelections(admin, row.name);
    const error = await failure((await host.open(options)).prepare(row.ref, signal));
    expect(codeOf(error)).toBe(code);
    expect(withoutSelections(await host.state(row.name))).toEqual(released());
    expect((await podSelections(admin, row.name)).resourceVersion).toBe(before.resourceVersion);
  });

  it('refuses a Pod whose annotations could not hold the selections, changing nothing', async () => {
    const row = await workload({ 'example.com/blob': 'x'.repeat(255 * 1024) });
    const error = await failure((await host.open()).prepare(row.ref, signal));
    expect(codeOf(error)).toBe('AnnotationTooLarge');
    expect(withoutSelections(await host.state(row.name))).toEqual(released());
  });
});

describe('prepare', () => {
  it('leaves the host as it was when the Pending record cannot be written, and another claim as it was', async () => {
    const other = await workload();
    await (await host.open()).prepare(other.ref, signal);
    const otherState = await host.state(other.name);
    const row = await createWorkload(admin, 'row-pending', { 'row-pending-nics': [DEVICES[2] ?? ''] });
    const ref = row.ref('row-pending-nics');

    const error = await failure((await host.open({ failWrite: (next) => next[ref.uid] !== undefined })).prepare(ref, signal));
    expect(error).toMatchObject({ message: INJECTED_WRITE_FAILURE });
    expect(await host.state(other.name)).toEqual(otherState);
    expect(await host.state('row-pending')).toEqual({ ...otherState, selections: { networks: undefined, registry: [] } });
    await releaseThroughKubelet(other);
  });

  it('keeps a Pending record when the shadow Create is forbidden, and goes forward on the retry', async () => {
    const limited = await driverWithout('no-nad-create', 'network-attachment-definitions', 'create');
    const row = await workload();
    const error = await failure((await host.open({ client: limited })).prepare(row.ref, signal));
    expect(isApiError(error, 'Forbidden')).toBe(true);
    const state = await host.state(row.name);
    expect(state.bindings.map((binding) => [binding.phase, binding.shadowUID])).toEqual([
      ['Pending', ''],
      ['Pending', ''],
    ]);
    expect([state.shadows, state.selections]).toEqual([[], { networks: undefined, registry: [] }]);

    expect(await (await restarted()).prepare(row.ref)).toBe('');
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Ready', 'Ready']);
    await releaseThroughKubelet(row);
  });

  it('refuses an object someone else created under the shadow’s name, never touching it, and releases once it is gone', async () => {
    const limited = await driverWithout('no-nad-create-2', 'network-attachment-definitions', 'create');
    const row = await workload();
    await failure((await host.open({ client: limited })).prepare(row.ref, signal));
    const [first] = (await host.state(row.name)).bindings;
    const foreign = await admin.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: first?.shadow, namespace: NS },
        spec: { config: '{"cniVersion":"1.0.0","name":"someone-else","type":"sriov"}' },
      },
      { namespace: NS },
    );

    expect(await (await restarted()).prepare(row.ref)).toContain('ShadowConflict');
    // §8.4 step 1: with no UID recorded, the release cannot tell it from its own shadow edited after a lost
    // Create response, so it waits, record kept, until the name is free.
    expect(await (await restarted()).unprepare(row.ref)).toContain('ShadowConflict');
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Deleting', 'Deleting']);
    const after = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: first?.shadow ?? '' });
    expect([after.metadata.uid, after.metadata.resourceVersion]).toEqual([foreign.metadata.uid, foreign.metadata.resourceVersion]);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: first?.shadow ?? '' });
    await releaseThroughKubelet(row);
  });

  it('adopts by identity and content, on the retry, the shadows whose UIDs could not be persisted', async () => {
    const { row, created } = await shadowsWithoutUIDs();
    expect(await (await restarted()).prepare(row.ref)).toBe('');
    const state = await host.state(row.name);
    expect(state.bindings.map((binding) => [binding.phase, binding.shadowUID])).toEqual(
      state.bindings.map((binding) => ['Ready', created.get(binding.shadow ?? '')?.metadata.uid]),
    );
    expect(state.shadows.map((shadow) => shadow.uid).sort()).toEqual([...created.values()].map((shadow) => shadow.metadata.uid).sort());
    await releaseThroughKubelet(row);
  });

  it('adopts and releases, on unprepare, the shadows whose UIDs could not be persisted, even once orphaned from their Pod', async () => {
    const { row, created } = await shadowsWithoutUIDs();
    const [orphaned] = created.keys();
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: orphaned ?? '' },
      [{ op: 'remove', path: '/metadata/ownerReferences' }],
      contentTypes.jsonPatch,
    );
    await releaseThroughKubelet(row);
  });

  it('keeps the shadows and their UIDs when the Pod patch is forbidden, and finishes on the retry', async () => {
    const limited = await driverWithout('no-pod-patch', 'pods', 'patch');
    const row = await workload();
    expect(isApiError(await failure((await host.open({ client: limited })).prepare(row.ref, signal)), 'Forbidden')).toBe(true);
    const state = await host.state(row.name);
    expect(state.bindings.map((binding) => binding.phase)).toEqual(['Pending', 'Pending']);
    expect(state.shadows.map((shadow) => shadow.uid).sort()).toEqual(state.bindings.map((binding) => binding.shadowUID).sort());
    expect(state.selections).toEqual({ networks: undefined, registry: [] });

    expect(await (await restarted()).prepare(row.ref)).toBe('');
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Ready', 'Ready']);
    await releaseThroughKubelet(row);
  });

  it.each([
    [
      'the shadow Create',
      (request: ApiRequest) => request.method === 'POST' && request.path.endsWith('/network-attachment-definitions'),
      { 'create network-attachment-definitions': 2 },
    ],
    ['the Pod patch', (request: ApiRequest) => request.method === 'PATCH' && request.path.includes('/pods/'), { 'patch pods': 1, 'get pods': 2 }],
  ] satisfies [string, (request: ApiRequest) => boolean, Record<string, number>][])(
    // One more read than the happy path (the object the lost answer was about), and no write twice.
    'goes on after the answer to %s never came (the client’s deadline), writing nothing twice',
    async (_step, matches, writes) => {
      const row = await workload();
      const requests = await withHeldAnswer(matches, async (client) => (await host.open({ client })).prepare(row.ref, signal));
      expect(requests).toMatchObject(writes);
      const state = await host.state(row.name);
      expect(state.bindings.map((binding) => binding.phase)).toEqual(['Ready', 'Ready']);
      expect(state.shadows.map((shadow) => shadow.uid).sort()).toEqual(state.bindings.map((binding) => binding.shadowUID).sort());
      expect(state.selections === 'no Pod' ? [] : (state.selections.networks as unknown[])).toHaveLength(2);
      await releaseThroughKubelet(row);
    },
  );

  it('keeps what another writer put on the Pod between the driver’s read and its patch (422), on prepare and release', async () => {
    const row = await workload();
    const manual = { name: 'macvlan-net', interface: 'net9' };
    const addManual = () =>
      admin.patch(
        resourceTypes.pod,
        { namespace: NS, name: row.name },
        { metadata: { annotations: { [annotations.networks]: JSON.stringify([manual]) } } },
        contentTypes.mergePatch,
      );
    const podPatch = (request: ApiRequest): boolean => request.method === 'PATCH' && request.path.endsWith(`/pods/${row.name}`);
    const raced = new ActingClient(host, podPatch, addManual);
    const requests = await host.driverRequests(async () => (await host.open({ client: raced })).prepare(row.ref, signal));
    expect(raced.acted).toBe(true);
    // The resourceVersion test failed once (422); the re-read Pod was merged and written.
    expect(requests['patch pods']).toBe(2);
    const prepared = await host.state(row.name);
    const networks = prepared.selections === 'no Pod' ? [] : (prepared.selections.networks as { name: string; interface?: string }[]);
    expect(networks[0]).toEqual(manual);
    expect(
      networks
        .slice(1)
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(prepared.shadows.map((shadow) => shadow.name).sort());
    raced.close();

    expect(await (await restarted()).unprepare(row.ref)).toBe('');
    const state = await host.state(row.name);
    expect(withoutSelections(state)).toEqual(released());
    expect(state.selections).toEqual({ networks: [manual], registry: [] });
  });

  it('keeps what another writer put on the Pod between the release’s read and its patch (422)', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const manual = { name: 'macvlan-net', interface: 'net9' };
    // Another writer appends its entry to the Pod's list just before the release writes the Pod.
    const appendManual = async () => {
      const { networks } = await podSelections(admin, row.name);
      await admin.patch(
        resourceTypes.pod,
        { namespace: NS, name: row.name },
        { metadata: { annotations: { [annotations.networks]: JSON.stringify([...(networks as unknown[]), manual]) } } },
        contentTypes.mergePatch,
      );
    };
    const podPatch = (request: ApiRequest): boolean => request.method === 'PATCH' && request.path.endsWith(`/pods/${row.name}`);
    const raced = new ActingClient(host, podPatch, appendManual);
    const requests = await host.driverRequests(async () => (await host.open({ client: raced })).unprepare(row.ref, signal));
    raced.close();
    expect(raced.acted).toBe(true);
    expect(requests['patch pods']).toBe(2);
    const state = await host.state(row.name);
    expect(withoutSelections(state)).toEqual(released());
    expect(state.selections).toEqual({ networks: [manual], registry: [] });
  });

  it('releases everything of a Pod deleted before its selections were written', async () => {
    const limited = await driverWithout('no-pod-patch-2', 'pods', 'patch');
    const row = await workload();
    await failure((await host.open({ client: limited })).prepare(row.ref, signal));
    await admin.delete(resourceTypes.pod, { namespace: NS, name: row.name }, { gracePeriodSeconds: 0 });
    // kube-controller-manager's resourceclaim controller drops a deleted Pod's reservation.
    await waitFor('the reservation dropped', async () => ((await readResourceClaim(admin, NS, row.ref.name)).status?.reservedFor ?? []).length === 0, {
      timeoutMs: 30_000,
    });
    expect(await (await restarted()).prepare(row.ref)).toContain('InvalidClaimReservation');
    await releaseThroughKubelet(row);
  });

  it('completes on the retry when Ready cannot be written, without writing the Pod again', async () => {
    const row = await workload();
    const failReady = isRecordOf(row.ref.uid, (record) => phasesOf(record).includes('Ready'));
    expect(await failure((await host.open({ failWrite: failReady })).prepare(row.ref, signal))).toMatchObject({ message: INJECTED_WRITE_FAILURE });
    const selections = await podSelections(admin, row.name);
    expect((selections.networks as unknown[]).length).toBe(2);
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Pending', 'Pending']);

    expect(await (await restarted()).prepare(row.ref)).toBe('');
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Ready', 'Ready']);
    expect((await podSelections(admin, row.name)).resourceVersion).toBe(selections.resourceVersion);
    await releaseThroughKubelet(row);
  });
});

describe('unprepare', () => {
  it.each([
    ['Deleting', (record: ClaimRecord) => phasesOf(record).includes('Deleting')],
    ['ReleaseComplete', (record: ClaimRecord) => phasesOf(record).includes('ReleaseComplete')],
  ])('resumes when %s cannot be persisted', async (phase, test) => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const prepared = await host.state(row.name);
    expect(await failure((await host.open({ failWrite: isRecordOf(row.ref.uid, test) })).unprepare(row.ref, signal))).toMatchObject({
      message: INJECTED_WRITE_FAILURE,
    });
    const stopped = await host.state(row.name);
    if (phase === 'Deleting') {
      expect(stopped).toEqual(prepared);
    } else {
      expect(stopped.bindings.map((binding) => binding.phase)).toEqual(['Deleting', 'Deleting']);
      // Deletion requested, still protected: readable by Multus's DEL until the release is durable.
      expect(stopped.shadows.map((shadow) => [shadow.deleting, shadow.finalizers])).toEqual([
        [true, [ATTACHMENT_PROTECTION_FINALIZER]],
        [true, [ATTACHMENT_PROTECTION_FINALIZER]],
      ]);
      expect(stopped.selections).toEqual({ networks: undefined, registry: [] });
    }
    await releaseThroughKubelet(row);
  });

  it('retries a failed host release without going back on the API steps already done', async () => {
    const vf = VFS[6] ?? '';
    await host.setDriver(vf, null);
    const row = await createWorkload(admin, 'row-host', { 'row-host-nics': [DEVICES[6] ?? ''] }, {}, [vfConfig({ driver: 'mlx5_core' })]);
    const ref = row.ref('row-host-nics');
    await (await host.open()).prepare(ref, signal);
    // The VF's driver_override cannot be read: restoring "no driver" fails, as a sysfs error would make it.
    const override = path.join(host.sysfsRoot, 'bus/pci/devices', vf, 'driver_override');
    const saved = fs.readFileSync(override, 'utf8');
    fs.rmSync(override);
    fs.mkdirSync(override);
    try {
      expect(isHostOperationError(await failure((await host.open()).unprepare(ref, signal)), 'DriverBindingFailed')).toBe(true);
    } finally {
      fs.rmdirSync(override);
      fs.writeFileSync(override, saved);
    }
    const stopped = await host.state('row-host');
    expect(stopped.bindings.map((binding) => binding.phase)).toEqual(['Deleting']);
    expect(stopped.shadows.map((shadow) => [shadow.deleting, shadow.finalizers])).toEqual([[true, [ATTACHMENT_PROTECTION_FINALIZER]]]);
    expect(stopped.selections).toEqual({ networks: undefined, registry: [] });
    expect(host.driverOf(vf)).toBe('mlx5_core');

    expect(await (await restarted()).unprepare(ref)).toBe('');
    expect(host.driverOf(vf)).toBeNull();
    await host.setDriver(vf, 'mlx5_core');
    expect(withoutSelections(await host.state('row-host'))).toEqual(released());
  });

  it('finishes on the retry when the record cannot be removed, the shadows already released', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    // Every write of this preparer before the last one holds the claim's record.
    const first = await host.open({ failWrite: (next) => next[row.ref.uid] === undefined });
    await first.prepare(row.ref, signal);
    expect(await failure(first.unprepare(row.ref, signal))).toMatchObject({ message: INJECTED_WRITE_FAILURE });
    const stopped = await host.state(row.name);
    expect([stopped.bindings.map((binding) => binding.phase), stopped.shadows]).toEqual([['ReleaseComplete', 'ReleaseComplete'], []]);
    await releaseThroughKubelet(row);
  });

  it('never repeats the host release when the finalizer removal is retried', async () => {
    const limited = await driverWithout('no-nad-patch', 'network-attachment-definitions', 'patch');
    const vf = VFS[7] ?? '';
    await host.setDriver(vf, null);
    const row = await createWorkload(admin, 'row-once', { 'row-once-nics': [DEVICES[7] ?? ''] }, {}, [vfConfig({ driver: 'mlx5_core' })]);
    const ref = row.ref('row-once-nics');
    await (await host.open()).prepare(ref, signal);
    expect(host.driverOf(vf)).toBe('mlx5_core');

    expect(isApiError(await failure((await host.open({ client: limited })).unprepare(ref, signal)), 'Forbidden')).toBe(true);
    const stopped = await host.state('row-once');
    expect([stopped.bindings.map((binding) => binding.phase), host.driverOf(vf)]).toEqual([['ReleaseComplete'], null]);
    expect(stopped.shadows.map((shadow) => [shadow.deleting, shadow.finalizers])).toEqual([[true, [ATTACHMENT_PROTECTION_FINALIZER]]]);

    // The VF is someone else's now: the retried release must leave it alone.
    await host.setDriver(vf, 'mlx5_core');
    expect(await (await restarted()).unprepare(ref)).toBe('');
    expect(withoutSelections(await host.state('row-once'))).toEqual(released());
  });

  it.each([
    // A lost DELETE is sent again (a Terminating shadow answers it the same); a lost finalizer removal is settled by a read.
    ['the shadow DELETE', (request: ApiRequest) => request.method === 'DELETE' && request.path.includes('/network-attachment-definitions/'), [3, 2, 2]],
    ['the finalizer removal', (request: ApiRequest) => request.method === 'PATCH' && request.path.includes('/network-attachment-definitions/'), [2, 2, 3]],
  ] satisfies [string, (request: ApiRequest) => boolean, [number, number, number]][])(
    'finishes the release after the answer to %s never came (the client’s deadline)',
    async (_step, matches, counts) => {
      const row = await workload();
      await (await host.open()).prepare(row.ref, signal);
      const requests = await withHeldAnswer(matches, async (client) => {
        // An open connection to hold: the release's first request may well be the one held.
        await client.get(resourceTypes.pod, { namespace: NS, name: row.name });
        return (await host.open({ client })).unprepare(row.ref, signal);
      });
      // DELETEs, PATCHes and GETs of shadows: one of each write per shadow on the happy path, after one
      // read per shadow that verifies it against its record (§8.4 step 1).
      const verbs = ['delete', 'patch', 'get'].map((verb) => requests[`${verb} network-attachment-definitions`] ?? 0);
      expect(verbs).toEqual(counts);
      const state = await host.state(row.name);
      expect(withoutSelections(state)).toEqual(released());
    },
  );

  it('re-reads and retries its finalizer removal when another writer changed the Terminating shadow first (422)', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [first] = (await host.state(row.name)).shadows;
    // A label is what another writer may still change on a Terminating object (no new finalizers).
    const relabel = () =>
      admin.patch(
        resourceTypes.networkAttachmentDefinition,
        { namespace: NS, name: first?.name ?? '' },
        { metadata: { labels: { 'example.com/audited': 'true' } } },
        contentTypes.mergePatch,
      );
    const finalizerPatch = (request: ApiRequest): boolean =>
      request.method === 'PATCH' && request.path.endsWith(`/network-attachment-definitions/${first?.name ?? ''}`);
    const raced = new ActingClient(host, finalizerPatch, relabel);
    const requests = await host.driverRequests(async () => (await host.open({ client: raced })).unprepare(row.ref, signal));
    raced.close();
    expect(raced.acted).toBe(true);
    // One finalizer removal per shadow, and one more after the failed resourceVersion test.
    expect(requests['patch network-attachment-definitions']).toBe(3);
    expect(withoutSelections(await host.state(row.name))).toEqual(released());
  });

  it('removes only its own finalizer: a foreign one keeps the shadow Terminating', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      [{ op: 'add', path: '/metadata/finalizers/-', value: 'example.com/audit' }],
      contentTypes.jsonPatch,
    );
    await (await host.open()).unprepare(row.ref, signal);
    const state = await host.state(row.name);
    expect(state.bindings).toEqual([]);
    expect(state.shadows).toEqual([{ name: shadow?.name, uid: shadow?.uid, finalizers: ['example.com/audit'], deleting: true }]);
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      contentTypes.jsonPatch,
    );
    expect(withoutSelections(await host.state(row.name))).toEqual(released());
  });
});

describe('changes made by others', () => {
  it('never recreates a shadow deleted while its Pod runs, and still releases it', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow?.name ?? '' });
    expect(await (await restarted()).prepare(row.ref)).toContain('ShadowDeletionPending');
    await releaseThroughKubelet(row);
  });

  it('recreates a shadow that is truly gone, forgetting its old UID first, and records the new one on the Pod', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    await stripFinalizerAndDelete(shadow?.name ?? '');
    expect(await (await restarted()).prepare(row.ref)).toBe('');
    const state = await host.state(row.name);
    const recreated = state.shadows.find((found) => found.name === shadow?.name);
    expect(recreated?.uid).not.toBe(shadow?.uid);
    expect(state.bindings.find((binding) => binding.shadow === shadow?.name)).toMatchObject({ phase: 'Ready', shadowUID: recreated?.uid });
    expect(state.selections === 'no Pod' ? [] : state.selections.registry.map((entry) => entry['uid']).sort()).toEqual(
      state.shadows.map((found) => found.uid).sort(),
    );
    await releaseThroughKubelet(row);
  });

  it('releases a claim whose shadow someone already removed altogether', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    await stripFinalizerAndDelete(shadow?.name ?? '');
    await releaseThroughKubelet(row);
  });

  it('refuses an exact copy someone recreated under a recorded shadow’s name: the recorded UID is the proof', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    const original = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow?.name ?? '' });
    await stripFinalizerAndDelete(shadow?.name ?? '');
    const { name, namespace, labels, annotations: copied, ownerReferences, finalizers } = original.metadata;
    const metadata = { name, namespace, labels, annotations: copied, ownerReferences, finalizers };
    const copy = await admin.create(resourceTypes.networkAttachmentDefinition, { ...original, metadata }, { namespace: NS });
    expect(await (await restarted()).prepare(row.ref)).toContain('ShadowConflict');
    // Nor released past it (§8.4 step 1: a replacement UID is a conflict): the record waits for the copy to go.
    expect(await (await restarted()).unprepare(row.ref)).toContain('ShadowConflict');
    expect((await host.state(row.name)).bindings.map((binding) => binding.phase)).toEqual(['Deleting', 'Deleting']);
    // Not ours: left as it is, finalizer and all.
    const after = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow?.name ?? '' });
    expect([after.metadata.uid, after.metadata.resourceVersion]).toEqual([copy.metadata.uid, copy.metadata.resourceVersion]);
    await stripFinalizerAndDelete(shadow?.name ?? '');
    await releaseThroughKubelet(row);
  });

  it('restores a protection finalizer stripped from a live shadow', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      [{ op: 'remove', path: '/metadata/finalizers' }],
      contentTypes.jsonPatch,
    );
    expect(await (await restarted()).prepare(row.ref)).toBe('');
    expect((await host.state(row.name)).shadows.find((found) => found.name === shadow?.name)).toEqual(shadow);
    await releaseThroughKubelet(row);
  });

  it('refuses a shadow whose content was edited, and its release until the content is put back', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const [shadow] = (await host.state(row.name)).shadows;
    const frozen = await admin.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, {
      namespace: NS,
      name: shadow?.name ?? '',
    });
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      { spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.7"}' } },
      contentTypes.mergePatch,
    );
    expect(await (await restarted()).prepare(row.ref)).toContain('ShadowConflict');
    // §8.4 step 1: edited content is a conflict for the release too; nothing is deleted or unprotected.
    expect(await (await restarted()).unprepare(row.ref)).toContain('ShadowConflict');
    expect((await host.state(row.name)).shadows.map((found) => [found.finalizers, found.deleting])).toEqual([
      [[ATTACHMENT_PROTECTION_FINALIZER], false],
      [[ATTACHMENT_PROTECTION_FINALIZER], false],
    ]);
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow?.name ?? '' },
      { spec: { config: frozen.spec.config } },
      contentTypes.mergePatch,
    );
    await releaseThroughKubelet(row);
  });

  it('puts back the selections and registry when someone removed them from the Pod', async () => {
    const row = await workload();
    await (await host.open()).prepare(row.ref, signal);
    const prepared = await podSelections(admin, row.name);
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: row.name },
      { metadata: { annotations: { [annotations.networks]: null, [annotations.managedNetworks]: null } } },
      contentTypes.mergePatch,
    );
    expect(await podSelections(admin, row.name)).toMatchObject({ networks: undefined, registry: undefined });
    expect(await (await restarted()).prepare(row.ref)).toBe('');
    expect(await podSelections(admin, row.name)).toMatchObject({ networks: prepared.networks, registry: prepared.registry });
    await releaseThroughKubelet(row);
  });

  it.each([
    ['a corrupt checkpoint', '{"version":1,"checksum":"00","claims":{}}\n', 'CheckpointCorrupt'],
    ['a checkpoint of an unknown version', '{"version":2,"checksum":"00","claims":{"x":{}}}\n', 'UnsupportedCheckpointVersion'],
  ])('refuses to start on %s and leaves the file as it is', async (_case, content, code) => {
    const file = path.join(host.pluginDir, 'checkpoint.json');
    const saved = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
    fs.writeFileSync(file, content);
    try {
      await expect(host.restart()).rejects.toThrow(new RegExp(code));
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
    } finally {
      if (saved === undefined) fs.rmSync(file);
      else fs.writeFileSync(file, saved);
    }
  });
});
