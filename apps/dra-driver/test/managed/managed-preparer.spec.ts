// NodePrepareResources and NodeUnprepareResources with managed attachment on, end to end below the gRPC
// wire: a real v1.36.3 API server (with the garbage collector), the driver's own RBAC, a fake sysfs served
// by the kernel emulator, the checkpoint on disk. Every preparer is opened fresh over the same state
// directory, as a restarted driver would be.
import { describe, expect, it, jest } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, isSriovDraError } from '@sriov-dra/contract';
import { type ApiRequest, type KubeClient, contentTypes, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { createRoleBinding, waitFor } from '@sriov-dra/k8s/testing';
import { sriovDra } from '../admin/run-sriov-dra.ts';
import {
  ActingClient,
  DEVICES,
  DRIVER_USER,
  type ManagedNode,
  NAD_NAME_ATTRIBUTE,
  NS,
  VFS,
  WatchedLocks,
  createSource,
  createWorkload,
  listShadows,
  podSelections,
  sourceConfig,
  useManagedNode,
  vfConfig,
} from './managed-node.ts';

const signal = new AbortController().signal;

let host: ManagedNode;
let admin: KubeClient;

useManagedNode((started) => {
  host = started;
  admin = started.admin;
});

jest.setTimeout(60_000);

/** A Pod that started terminating and stays so: a finalizer holds it, as a controller's would. */
async function startTerminating(name: string): Promise<void> {
  await admin.patch(resourceTypes.pod, { namespace: NS, name }, { metadata: { finalizers: ['example.com/hold'] } }, contentTypes.mergePatch);
  await admin.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
}

async function releaseTerminating(name: string): Promise<void> {
  await admin.patch(resourceTypes.pod, { namespace: NS, name }, { metadata: { finalizers: null } }, contentTypes.mergePatch);
  await podGone(name);
}

async function deletePod(name: string): Promise<void> {
  await admin.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
  await podGone(name);
}

async function podGone(name: string): Promise<void> {
  await waitFor(
    `Pod ${name} to be gone`,
    async () => {
      try {
        await admin.get(resourceTypes.pod, { namespace: NS, name });
        return false;
      } catch (error) {
        return isApiError(error, 'NotFound');
      }
    },
    { timeoutMs: 30_000 },
  );
}

describe('managed prepare and unprepare', () => {
  it('gives a claim of two VFs two protected shadows and the Pod’s selections, writes nothing on retry, and releases it all once', async () => {
    const source = await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-a' });
    const workload = await createWorkload(admin, 'trainer-0', { pair: [DEVICES[0] ?? '', DEVICES[1] ?? ''] });
    const ref = workload.ref('pair');

    const devices = await (await host.open()).prepare(ref, signal);
    expect(devices.map((device) => device.deviceName)).toEqual([DEVICES[0], DEVICES[1]]);

    const shadows = await listShadows(admin);
    expect(shadows.size).toBe(2);
    const [record] = await host.records();
    const bindings = record?.devices.map((device) => device.managedBinding);
    expect(bindings?.map((binding) => [binding?.phase, binding?.pciAddress, binding?.interface])).toEqual([
      ['Ready', VFS[0], 'dra0'],
      ['Ready', VFS[1], 'dra1'],
    ]);
    for (const binding of bindings ?? []) {
      const shadow = shadows.get(binding?.shadow.name ?? '');
      expect(shadow?.metadata.uid).toBe(binding?.shadow.uid);
      expect(shadow?.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
      expect(shadow?.metadata.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'Pod', name: 'trainer-0', uid: workload.pod.metadata.uid, blockOwnerDeletion: false },
      ]);
      expect(JSON.parse(shadow?.spec.config ?? '{}')).toEqual({ ...JSON.parse(sourceConfig('rail-a', '192.0.2.0/24')), deviceID: binding?.pciAddress });
    }
    const selections = await podSelections(admin, 'trainer-0');
    expect(selections.networks).toEqual((bindings ?? []).map((binding) => ({ name: binding?.shadow.name, namespace: NS, interface: binding?.interface })));
    expect(selections.registry?.entries.map((entry) => [entry['claimUID'], entry['uid'], entry['interface']])).toEqual(
      (bindings ?? []).map((binding) => [ref.uid, binding?.shadow.uid, binding?.interface]),
    );

    // A kubelet retry (here after a restart) finds everything done and writes nothing.
    await (await host.open()).prepare(ref, signal);
    expect((await podSelections(admin, 'trainer-0')).resourceVersion).toBe(selections.resourceVersion);
    expect([...(await listShadows(admin)).values()].map((shadow) => shadow.metadata.resourceVersion)).toEqual(
      [...shadows.values()].map((shadow) => shadow.metadata.resourceVersion),
    );

    await (await host.open()).unprepare(ref, signal);
    expect(await listShadows(admin)).toEqual(new Map());
    const released = await podSelections(admin, 'trainer-0');
    expect([released.networks, released.registry]).toEqual([undefined, undefined]);
    expect(await host.records()).toEqual([]);
    expect(host.cdiFiles()).toEqual([]);
    await (await host.open()).unprepare(ref, signal);

    // The source template was only read.
    expect((await admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-a' })).metadata.resourceVersion).toBe(
      source.metadata.resourceVersion,
    );
    await deletePod('trainer-0');
  });

  it('prepares with the claim, the Pod, the Node and each source read once, one Create per shadow and one Pod write per claim', async () => {
    const single = await createWorkload(admin, 'counted-0', { 'counted-0-nics': [DEVICES[0] ?? '', DEVICES[1] ?? ''] });
    const pair = await createWorkload(admin, 'counted-1', {
      'counted-1-a': [DEVICES[2] ?? '', DEVICES[3] ?? ''],
      'counted-1-b': [DEVICES[4] ?? '', DEVICES[5] ?? ''],
    });
    const preparer = await host.open();
    expect(await host.driverRequests(() => preparer.prepare(single.ref('counted-0-nics'), signal))).toEqual({
      'create network-attachment-definitions': 2,
      'get network-attachment-definitions': 1,
      'get nodes': 1,
      'get pods': 1,
      'get resourceclaims': 1,
      'patch pods': 1,
    });
    // Two claims of one Pod at once, as one kubelet call carries them: the second waits for the Pod's
    // lock, then reads its claim again (is it still reserved for this Pod?) and checks the Pod as the
    // first one wrote it, and writes against that Pod, not against its own older read.
    expect(
      await host.driverRequests(() => Promise.all([preparer.prepare(pair.ref('counted-1-a'), signal), preparer.prepare(pair.ref('counted-1-b'), signal)])),
    ).toEqual({
      'create network-attachment-definitions': 4,
      'get network-attachment-definitions': 2,
      'get nodes': 2,
      'get pods': 2,
      'get resourceclaims': 5,
      'patch pods': 2,
    });
    for (const ref of [single.ref('counted-0-nics'), pair.ref('counted-1-a'), pair.ref('counted-1-b')]) await preparer.unprepare(ref, signal);
    await deletePod('counted-0');
    await deletePod('counted-1');
  });

  it('numbers interfaces over all the Pod’s claims whichever is prepared first, and releasing one claim keeps the other’s entries', async () => {
    const workload = await createWorkload(admin, 'trainer-1', { 'rail-b': [DEVICES[3] ?? ''], 'rail-a': [DEVICES[2] ?? ''] });
    const preparer = await host.open();
    await preparer.prepare(workload.ref('rail-b'), signal);
    await preparer.prepare(workload.ref('rail-a'), signal);
    const interfaces = (await host.records()).flatMap((record) =>
      record.devices.map((device) => [record.claimName, device.managedBinding?.interface, device.managedBinding?.phase]),
    );
    expect(interfaces.sort()).toEqual([
      ['rail-a', 'dra0', 'Ready'],
      ['rail-b', 'dra1', 'Ready'],
    ]);
    expect(((await podSelections(admin, 'trainer-1')).networks as { interface: string }[]).map((entry) => entry.interface)).toEqual(['dra1', 'dra0']);

    await preparer.unprepare(workload.ref('rail-b'), signal);
    const left = await podSelections(admin, 'trainer-1');
    expect((left.networks as { interface: string }[]).map((entry) => entry.interface)).toEqual(['dra0']);
    expect(left.registry?.entries.map((entry) => entry['claimUID'])).toEqual([workload.ref('rail-a').uid]);
    expect([...(await listShadows(admin)).values()].map((shadow) => shadow.metadata.labels?.['sriovnetwork.k8snetworkplumbingwg.io/claim-uid'])).toEqual([
      workload.ref('rail-a').uid,
    ]);
    await preparer.unprepare(workload.ref('rail-a'), signal);
    expect(await listShadows(admin)).toEqual(new Map());
    await deletePod('trainer-1');
  });

  it('ignores source edits and deletion for an existing binding, and gives a reused claim a new binding identity', async () => {
    await createSource(admin, 'rail-x', '198.51.100.0/24');
    const first = await createWorkload(admin, 'trainer-2', { reused: [DEVICES[4] ?? ''] }, {});
    const opened = await host.open({ sourceOf: () => 'rail-x' });
    await opened.prepare(first.ref('reused'), signal);
    const [before] = [...(await listShadows(admin)).values()];

    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: 'rail-x' },
      { spec: { config: sourceConfig('rail-x', '203.0.113.0/24') } },
      'application/merge-patch+json',
    );
    await (await host.open({ sourceOf: () => 'rail-x' })).prepare(first.ref('reused'), signal);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-x' });
    await (await host.open({ sourceOf: () => 'rail-x' })).prepare(first.ref('reused'), signal);
    const [after] = [...(await listShadows(admin)).values()];
    expect(after?.metadata.uid).toBe(before?.metadata.uid);
    expect(after?.spec.config).toContain('198.51.100.0/24');

    await (await host.open()).unprepare(first.ref('reused'), signal);
    await deletePod('trainer-2');
    await createSource(admin, 'rail-x', '203.0.113.0/24');
    const second = await createWorkload(admin, 'trainer-3', { reused: [DEVICES[4] ?? ''] });
    expect(second.ref('reused').uid).toBe(first.ref('reused').uid);
    await (await host.open({ sourceOf: () => 'rail-x' })).prepare(second.ref('reused'), signal);
    const [reused] = [...(await listShadows(admin)).values()];
    expect(reused?.metadata.name).not.toBe(before?.metadata.name);
    expect(reused?.spec.config).toContain('203.0.113.0/24');
    const [record] = await host.records();
    expect(record?.pod.uid).toBe(second.pod.metadata.uid);
    await (await host.open()).unprepare(second.ref('reused'), signal);
    await deletePod('trainer-3');
  });

  it('binds a VF the VfConfig names a kernel driver for, and gives it back unbound on release', async () => {
    const unbound = 6;
    await host.setDriver(VFS[unbound] ?? '', null);
    const workload = await createWorkload(admin, 'trainer-6', { bound: [DEVICES[unbound] ?? ''] }, {}, [vfConfig({ driver: 'mlx5_core', ifName: 'rail0' })]);
    await (await host.open()).prepare(workload.ref('bound'), signal);
    expect(host.driverOf(VFS[unbound] ?? '')).toBe('mlx5_core');
    expect((await podSelections(admin, 'trainer-6')).networks).toMatchObject([{ interface: 'rail0' }]);
    await (await host.open()).unprepare(workload.ref('bound'), signal);
    expect(host.driverOf(VFS[unbound] ?? '')).toBeNull();
    await host.setDriver(VFS[unbound] ?? '', 'mlx5_core');
    await deletePod('trainer-6');
  });

  it.each(['Background', 'Foreground'] as const)(
    'keeps the shadows Terminating after a %s deletion of the Pod by the garbage collector, until unprepare releases them',
    async (propagationPolicy) => {
      const pod = `collected-${propagationPolicy.toLowerCase()}`;
      const workload = await createWorkload(admin, pod, { [`${pod}-nics`]: [DEVICES[6] ?? '', DEVICES[7] ?? ''] });
      const ref = workload.ref(`${pod}-nics`);
      await (await host.open()).prepare(ref, signal);
      await admin.delete(resourceTypes.pod, { namespace: NS, name: pod }, { gracePeriodSeconds: 0, propagationPolicy });
      await waitFor(
        'the garbage collector to delete both shadows',
        async () => [...(await listShadows(admin)).values()].filter((shadow) => shadow.metadata.deletionTimestamp !== undefined).length === 2,
        { timeoutMs: 30_000 },
      );
      expect([...(await listShadows(admin)).values()].map((shadow) => shadow.metadata.finalizers)).toEqual([
        [ATTACHMENT_PROTECTION_FINALIZER],
        [ATTACHMENT_PROTECTION_FINALIZER],
      ]);
      await (await host.open()).unprepare(ref, signal);
      expect(await listShadows(admin)).toEqual(new Map());
      expect(await host.records()).toEqual([]);
    },
  );

  it('keeps no released shadow for a completed Pod that is retained', async () => {
    const workload = await createWorkload(admin, 'finished-0', { 'finished-0-nics': [DEVICES[0] ?? ''] });
    const ref = workload.ref('finished-0-nics');
    await (await host.open()).prepare(ref, signal);
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'finished-0', subresource: 'status' },
      { status: { phase: 'Succeeded' } },
      contentTypes.mergePatch,
    );
    await (await host.open()).unprepare(ref, signal);
    const retained = await podSelections(admin, 'finished-0');
    expect([retained.networks, retained.registry, await listShadows(admin)]).toEqual([undefined, undefined, new Map()]);
    await deletePod('finished-0');
  });

  it('is inspected with each binding’s IPAM and checkpoint phase, and the driver identity’s permission gaps', async () => {
    const workload = await createWorkload(admin, 'inspected-0', { 'inspected-0-nics': [DEVICES[0] ?? ''] });
    const ref = workload.ref('inspected-0-nics');
    await (await host.open()).prepare(ref, signal);
    await admin.create(resourceTypes.clusterRole, {
      metadata: { name: 'shadow-reader' },
      rules: [{ apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get', 'create', 'patch'] }],
    });
    await createRoleBinding(admin, {
      metadata: { name: 'shadow-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'shadow-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'half-driver' }],
    });
    const kubeconfig = host.cp.kubeconfigFor('inspecting-admin', { groups: ['system:masters'] });
    const inspect = async (driverUser: string) => {
      const run = await sriovDra(
        'inspect',
        'pod',
        `${NS}/inspected-0`,
        '--kubeconfig',
        kubeconfig,
        '--plugins-dir',
        host.pluginsDir,
        '--driver-user',
        driverUser,
        '-o',
        'json',
      );
      expect([run.code, run.stderr]).toEqual([0, '']);
      return JSON.parse(run.stdout) as { attachments: Record<string, unknown>[]; permissionGaps: string[] };
    };
    const full = await inspect(DRIVER_USER);
    expect(full.attachments.map((view) => [view['interface'], view['ipam'], view['phase'], view['state']])).toEqual([
      ['dra0', 'host-local 192.0.2.0/24', 'Ready', 'pending-cni'],
    ]);
    expect(full.permissionGaps).toEqual([]);
    expect((await inspect('half-driver')).permissionGaps).toEqual([
      `half-driver cannot get resourceclaims.resource.k8s.io in ${NS}`,
      `half-driver cannot get pods in ${NS}`,
      `half-driver cannot patch pods in ${NS}`,
      `half-driver cannot delete network-attachment-definitions.k8s.cni.cncf.io in ${NS}`,
    ]);
    await (await host.open()).unprepare(ref, signal);
    await deletePod('inspected-0');
  });

  it('refuses a new Pod of a claim whose release is still in progress, and serves it once the release finished', async () => {
    // The release stops after Deleting is durable: the driver may not delete NADs (yet).
    await admin.create(resourceTypes.clusterRole, {
      metadata: { name: 'no-nad-delete' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'patch'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
        { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] },
        { apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get', 'create', 'patch'] },
      ],
    });
    await createRoleBinding(admin, {
      metadata: { name: 'no-nad-delete' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'no-nad-delete' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'limited-driver' }],
    });
    const limited = host.cp.clientFor('limited-driver');
    const first = await createWorkload(admin, 'trainer-4', { handover: [DEVICES[5] ?? ''] });
    await (await host.open()).prepare(first.ref('handover'), signal);
    const refused = await (await host.open({ client: limited })).unprepare(first.ref('handover'), signal).catch((error: unknown) => error);
    expect(isApiError(refused, 'Forbidden')).toBe(true);
    expect((await host.records()).flatMap((record) => record.devices.map((device) => device.managedBinding?.phase))).toEqual(['Deleting']);
    // Nothing past the failed step happened: the Pod keeps its selection, the VF its preparation.
    expect(((await podSelections(admin, 'trainer-4')).networks as unknown[]).length).toBe(1);
    expect(host.cdiFiles().length).toBe(2);

    await deletePod('trainer-4');
    const second = await createWorkload(admin, 'trainer-5', { handover: [DEVICES[5] ?? ''] });
    const early = await (await host.open()).prepare(second.ref('handover'), signal).catch((error: unknown) => error);
    expect(isSriovDraError(early) && early.code).toBe('ClaimReleaseInProgress');

    await (await host.open()).unprepare(first.ref('handover'), signal);
    expect(await listShadows(admin)).toEqual(new Map());
    await (await host.open()).prepare(second.ref('handover'), signal);
    expect((await host.records()).map((record) => record.pod.uid)).toEqual([second.pod.metadata.uid]);
    await (await host.open()).unprepare(second.ref('handover'), signal);
    await deletePod('trainer-5');
  });

  it('prepares a Pod’s new claim from its prepared claim’s record, although that claim’s template is gone and its VF withdrawn', async () => {
    await createSource(admin, 'rail-y', '203.0.113.0/24');
    const workload = await createWorkload(admin, 'trainer-7', { 'trainer-7-b': [DEVICES[6] ?? ''], 'trainer-7-a': [DEVICES[7] ?? ''] });
    await (await host.open({ sourceOf: (device) => (device === DEVICES[6] ? 'rail-y' : 'rail-a') })).prepare(workload.ref('trainer-7-b'), signal);
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-y' });
    const withdrawn = await host.open({ attributesOf: (device) => (device === DEVICES[6] ? undefined : { [NAD_NAME_ATTRIBUTE]: { string: 'rail-a' } }) });
    await withdrawn.prepare(workload.ref('trainer-7-a'), signal);

    const bindings = (await host.records()).flatMap((record) =>
      record.devices.map((device) => [record.claimName, device.managedBinding?.interface, device.managedBinding?.source.name, device.managedBinding?.phase]),
    );
    expect(bindings.sort()).toEqual([
      ['trainer-7-a', 'dra0', 'rail-a', 'Ready'],
      ['trainer-7-b', 'dra1', 'rail-y', 'Ready'],
    ]);
    expect(((await podSelections(admin, 'trainer-7')).networks as { interface: string }[]).map((entry) => entry.interface)).toEqual(['dra1', 'dra0']);
    for (const claim of ['trainer-7-a', 'trainer-7-b']) await withdrawn.unprepare(workload.ref(claim), signal);
    expect(await listShadows(admin)).toEqual(new Map());
    await deletePod('trainer-7');
  });

  it.each([
    ['terminating', {}],
    ['hostNetwork', { hostNetwork: true }],
  ] as const)('refuses a first prepare for a %s Pod and changes nothing', async (kind, podSpec) => {
    const name = `ineligible-${kind.toLowerCase()}`;
    const workload = await createWorkload(admin, name, { [name]: [DEVICES[0] ?? ''] }, {}, [], podSpec);
    if (kind === 'terminating') await startTerminating(name);
    const before = await host.state(name);
    const refused = await (await host.open()).prepare(workload.ref(name), signal).catch((error: unknown) => error);
    expect(isSriovDraError(refused) && [refused.code, refused.object?.field]).toEqual([
      'PodNotEligible',
      kind === 'terminating' ? 'metadata.deletionTimestamp' : 'spec.hostNetwork',
    ]);
    expect(await host.state(name)).toEqual(before);
    expect(before.bindings).toEqual([]);
    if (kind === 'terminating') await releaseTerminating(name);
    else await deletePod(name);
  });

  it('verifies the Pod again when the prepare had to wait for its lock: a Pod that started terminating meanwhile gets nothing', async () => {
    const workload = await createWorkload(admin, 'waiting-0', { 'waiting-0-a': [DEVICES[1] ?? ''] });
    const locks = new WatchedLocks();
    let release!: () => void;
    const held = locks.run(workload.pod.metadata.uid, () => new Promise<void>((resolve) => (release = resolve)));
    const before = await host.state('waiting-0');
    const prepared = (await host.open({ podLocks: locks })).prepare(workload.ref('waiting-0-a'), signal).catch((error: unknown) => error);
    await locks.reached(2);
    await startTerminating('waiting-0');
    release();
    await held;
    const refused = await prepared;
    expect(isSriovDraError(refused) && refused.code).toBe('PodNotEligible');
    expect(await listShadows(admin)).toEqual(new Map());
    expect(await host.state('waiting-0')).toEqual(before);
    await releaseTerminating('waiting-0');
  });

  it('verifies the reservation again when the Pod write is retried: a claim released meanwhile is not written to the Pod', async () => {
    const workload = await createWorkload(admin, 'moving-0', { 'moving-0-a': [DEVICES[2] ?? ''] });
    const podPatch = (request: ApiRequest): boolean => request.method === 'PATCH' && request.path.endsWith('/pods/moving-0');
    const raced = new ActingClient(host, podPatch, async () => {
      // The claim's allocation and reservation dropped together, as the resourceclaim controller drops them
      // (a reservation moved to another Pod would be put back by that controller for this bound Pod).
      await admin.patch(
        resourceTypes.resourceClaim,
        { namespace: NS, name: 'moving-0-a', subresource: 'status' },
        { status: { allocation: null, reservedFor: null } },
        contentTypes.mergePatch,
      );
      // Another writer of the Pod: the driver's resourceVersion test fails and it reads the Pod again.
      await admin.patch(resourceTypes.pod, { namespace: NS, name: 'moving-0' }, { metadata: { labels: { touched: 'yes' } } }, contentTypes.mergePatch);
    });
    const refused = await (await host.open({ client: raced })).prepare(workload.ref('moving-0-a'), signal).catch((error: unknown) => error);
    raced.close();
    expect(raced.acted).toBe(true);
    expect(isSriovDraError(refused) && [refused.code, refused.object?.field]).toEqual(['InvalidApiObject', 'status.allocation']);
    const selections = await podSelections(admin, 'moving-0');
    expect([selections.networks, selections.registry]).toEqual([undefined, undefined]);
    // The binding stays Pending for the kubelet's release.
    expect((await host.records()).flatMap((record) => record.devices.map((device) => device.managedBinding?.phase))).toEqual(['Pending']);
    await (await host.open()).unprepare(workload.ref('moving-0-a'), signal);
    expect(await listShadows(admin)).toEqual(new Map());
    await deletePod('moving-0');
  });
});
