// Policy resolution and ResourceSlice publication against the real API server (v1.36): the slices pass
// its validation, an unchanged republish writes nothing, a DeviceAttributes or inventory change
// rewrites the pool once under the next generation, more than 128 devices make two slices, an
// unresolved selector or a device over the attribute budget withholds those devices (a Warning Event on
// the Node names them) while the rest still publish, and kube-scheduler allocates two VFs on one PCIe root.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_API_VERSION, DRIVER_NAME } from '@sriov-dra/contract';
import { type ApiRequest, EventRecorder, KubeClient, type KubeObject, contentTypes, readPod, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import type { PhysicalFunction, VirtualFunction } from '../src/discovery/virtual-function.ts';
import type { InventoryDevice } from '../src/policy/policy-devices.ts';
import { resourceSliceName } from '../src/slices/slice-name.ts';
import { SlicePublication } from '../src/slices/slice-publication.ts';
import { createClaimConsumer } from './claim-consumer.ts';
import type { PublishResult } from '../src/slices/slice-publisher.ts';

const NAMESPACE = 'dra-driver-sriov';
const NODE = 'worker-a';

/** Counts the ResourceSlice writes the publication sends, to prove that "unchanged" means no request. */
class CountingClient extends KubeClient {
  sliceWrites = 0;
  override request(req: ApiRequest): Promise<unknown> {
    if (req.method !== 'GET' && req.path.includes('/resourceslices')) this.sliceWrites += 1;
    return super.request(req);
  }
}

function pf(netdev: string, pciAddress: string, pcieRoot: string): PhysicalFunction {
  return { pciAddress, netdev, vendor: '15b3', deviceID: '1017', totalVfs: 256, numVfs: 200, linkType: 'ethernet', linkUp: true, pcieRoot };
}

const PFS = [pf('ens1f0', '0000:3b:00.0', 'pci0000:3a'), pf('ens1f1', '0000:3b:00.1', 'pci0000:3a'), pf('ens2f0', '0000:1a:00.0', 'pci0000:17')];

function inventoryDevice(parent: PhysicalFunction, index: number): InventoryDevice {
  const [domain, bus] = parent.pciAddress.split(':');
  const fn = Number(parent.pciAddress.slice(-1));
  const pciAddress = `${domain ?? ''}:${bus ?? ''}:${(2 + fn * 16 + Math.floor(index / 8)).toString(16).padStart(2, '0')}.${index % 8}`;
  const vf: VirtualFunction = { pciAddress, vfIndex: index, pf: parent, vendor: '15b3', deviceID: '1018', driver: 'mlx5_core', rdmaCapable: false };
  return {
    name: pciAddress.replace(/[:.]/g, '-'),
    vf,
    attributes: {
      pciAddress: { string: pciAddress },
      PFName: { string: parent.netdev ?? '' },
      vfID: { int: index },
      'resource.kubernetes.io/pcieRoot': { string: parent.pcieRoot ?? '' },
    },
  };
}

function inventory(perPf: readonly number[]): InventoryDevice[] {
  return PFS.flatMap((parent, at) => Array.from({ length: perPf[at] ?? 0 }, (_, index) => inventoryDevice(parent, index)));
}

interface StoredEvent extends KubeObject {
  readonly type: string;
  readonly reason: string;
  readonly action: string;
  readonly note: string;
  readonly reportingController: string;
  readonly regarding: { kind: string; name: string; uid: string };
}

interface StoredSlice extends KubeObject {
  readonly spec: { pool: { name: string; generation: number; resourceSliceCount: number }; devices?: { name: string; attributes?: Record<string, unknown> }[] };
}

describe('ResourceSlice publication on a real control plane', () => {
  let cp: ControlPlane;
  let client: CountingClient;
  let publication: SlicePublication;
  let events: EventRecorder;
  const eventErrors: unknown[] = [];
  let devices = inventory([4, 2, 2]);
  const passes: PublishResult[] = [];
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let beforeFirstPass: Promise<ReadonlyMap<string, unknown>>;
  let abandonedWait: Promise<unknown>;
  let pendingUntilRun = false;

  const admin = (): KubeClient => cp.adminClient;
  const slices = async (): Promise<StoredSlice[]> =>
    (await admin().list<StoredSlice>(resourceTypes.resourceSlice, { fieldSelector: `spec.nodeName=${NODE}` })).items.sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : 1,
    );
  const deviceNames = async (): Promise<string[]> => (await slices()).flatMap((slice) => (slice.spec.devices ?? []).map((device) => device.name));
  const writingPasses = (): number => passes.filter((pass) => pass.created + pass.updated + pass.deleted > 0).length;
  /** The Warning Events on the Node with this reason (Node events live in the default namespace). */
  const nodeWarnings = async (reason: string): Promise<StoredEvent[]> =>
    (await admin().list<StoredEvent>(resourceTypes.event, { namespace: 'default' })).items.filter(
      (event) => event.regarding.kind === 'Node' && event.regarding.name === NODE && event.type === 'Warning' && event.reason === reason,
    );
  const namesOn = (netdev: string): string[] => devices.filter((device) => device.vf.pf.netdev === netdev).map((device) => device.name);

  beforeAll(async () => {
    cp = await startControlPlane({ controllerManager: true, scheduler: true });
    await installCrds(cp.adminClient);
    await createNamespace(cp.adminClient, NAMESPACE);
    await createNamespace(cp.adminClient, 'workloads');
    await createReadyNode(cp.adminClient, NODE, { pool: 'gpu' });
    client = new CountingClient(KubeClient.fromKubeConfig(cp.kubeconfig).config, { qps: 1_000, burst: 1_000 });
    events = new EventRecorder(client, { reportingController: DRIVER_NAME, reportingInstance: NODE, onError: (error) => eventErrors.push(error) });
    publication = new SlicePublication({
      client,
      driver: DRIVER_NAME,
      nodeName: NODE,
      namespace: NAMESPACE,
      limits: { listAttributes: false },
      inventory: () => devices,
      resyncMs: 0,
      events,
      onPass: (_resolution, result) => passes.push(result),
    });
    // A managed prepare asking before the first pass waits for it, unless the kubelet gives up first.
    let settled = false;
    beforeFirstPass = publication.eligibleDevices(AbortSignal.timeout(60_000)).finally(() => {
      settled = true;
    });
    const abandoned = new AbortController();
    abandonedWait = publication.eligibleDevices(abandoned.signal);
    abandonedWait.catch(() => undefined);
    abandoned.abort(new Error('the kubelet gave up'));
    await delay(100);
    pendingUntilRun = !settled;
    running = publication.run(stop.signal);
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    await events.close();
    client.close();
    await cp.stop();
  }, 60_000);

  it('answers what is eligible only once a pass has succeeded', async () => {
    expect(pendingUntilRun).toBe(true);
    await expect(abandonedWait).rejects.toThrow('the kubelet gave up');
    expect(await beforeFirstPass).toEqual(new Map());
  });

  it('publishes nothing before a policy selects devices', async () => {
    await publication.sync();
    expect(await slices()).toEqual([]);
    expect(client.sliceWrites).toBe(0);
  });

  it('publishes the devices a policy selects, with merged attributes, as one validated slice', async () => {
    await admin().create(
      resourceTypes.deviceAttributes,
      {
        apiVersion: DRIVER_API_VERSION,
        kind: 'DeviceAttributes',
        metadata: { name: 'rail-a', labels: { rail: 'a' } },
        spec: { attributes: { netAttachDefName: { string: 'rail-a-net' } } },
      },
      { namespace: NAMESPACE },
    );
    await admin().create(
      resourceTypes.sriovResourcePolicy,
      {
        apiVersion: DRIVER_API_VERSION,
        kind: 'SriovResourcePolicy',
        metadata: { name: 'rails' },
        spec: {
          nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['gpu'] }] }] },
          configs: [
            { deviceAttributesSelector: { matchLabels: { rail: 'a' } }, resourceFilters: [{ pfNames: ['ens1f0'] }] },
            { resourceFilters: [{ pfNames: ['ens1f1', 'ens2f0'] }] },
          ],
        },
      },
      { namespace: NAMESPACE },
    );
    await waitFor('policy devices published', async () => (await deviceNames()).length === 8, { timeoutMs: 30_000 });
    const [slice] = await slices();
    const node = await admin().get(resourceTypes.node, { name: NODE });
    expect(slice?.metadata.name).toBe(resourceSliceName(NODE, DRIVER_NAME, 0));
    expect(slice?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata.uid, controller: true }]);
    expect(slice?.spec).toMatchObject({ driver: DRIVER_NAME, nodeName: NODE, pool: { name: NODE, generation: 1, resourceSliceCount: 1 } });
    const railA = slice?.spec.devices?.find((device) => device.name === devices[0]?.name);
    expect(railA?.attributes).toEqual({
      [`${DRIVER_NAME}/netAttachDefName`]: { string: 'rail-a-net' },
      [`${DRIVER_NAME}/pciAddress`]: { string: devices[0]?.vf.pciAddress },
      [`${DRIVER_NAME}/PFName`]: { string: 'ens1f0' },
      [`${DRIVER_NAME}/vfID`]: { int: 0 },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
    });
    await publication.sync();
    expect(client.sliceWrites).toBe(1);
    // What prepare will check an allocation against: the published devices and their template reference.
    const eligible = await publication.eligibleDevices(AbortSignal.timeout(1000));
    expect([...eligible.keys()].sort()).toEqual((await deviceNames()).sort());
    expect(eligible.get(devices[0]?.name ?? '')?.nadReference).toEqual({ name: 'rail-a-net', namespace: null });
  }, 60_000);

  it('republishes an unchanged inventory without a single write', async () => {
    const before = { writes: client.sliceWrites, passes: passes.length, resourceVersion: (await slices())[0]?.metadata.resourceVersion };
    publication.inventoryChanged();
    const result = await publication.sync();
    expect(result).toEqual({ generation: 1, created: 0, updated: 0, deleted: 0 });
    expect(passes.length).toBeGreaterThan(before.passes);
    expect(client.sliceWrites).toBe(before.writes);
    expect((await slices())[0]?.metadata.resourceVersion).toBe(before.resourceVersion);
  }, 30_000);

  it('a DeviceAttributes change rewrites the pool once, under the next generation', async () => {
    const before = { writes: client.sliceWrites, writing: writingPasses() };
    await admin().patch(
      resourceTypes.deviceAttributes,
      { namespace: NAMESPACE, name: 'rail-a' },
      { spec: { attributes: { netAttachDefName: { string: 'rail-a-net' }, 'example.com/tier': { int: 2 } } } },
      contentTypes.mergePatch,
    );
    await waitFor('attribute published', async () => (await slices())[0]?.spec.pool.generation === 2, { timeoutMs: 30_000 });
    await publication.sync();
    const railA = (await slices())[0]?.spec.devices?.find((device) => device.name === devices[0]?.name);
    expect(railA?.attributes?.['example.com/tier']).toEqual({ int: 2 });
    expect(client.sliceWrites - before.writes).toBe(1);
    expect(writingPasses() - before.writing).toBe(1);
  }, 60_000);

  it('more than 128 devices make two slices that both name the pool size', async () => {
    const before = client.sliceWrites;
    devices = inventory([4, 2, 200]);
    publication.inventoryChanged();
    const result = await publication.sync();
    expect(result).toEqual({ generation: 3, created: 1, updated: 1, deleted: 0 });
    const stored = await slices();
    expect(stored.map((slice) => [slice.metadata.name, slice.spec.pool, slice.spec.devices?.length])).toEqual([
      [resourceSliceName(NODE, DRIVER_NAME, 0), { name: NODE, generation: 3, resourceSliceCount: 2 }, 128],
      [resourceSliceName(NODE, DRIVER_NAME, 1), { name: NODE, generation: 3, resourceSliceCount: 2 }, 206 - 128],
    ]);
    expect(client.sliceWrites - before).toBe(2);
  }, 60_000);

  it('recreates a slice deleted behind its back', async () => {
    const second = resourceSliceName(NODE, DRIVER_NAME, 1);
    await admin().delete(resourceTypes.resourceSlice, { name: second });
    await waitFor('slice recreated', async () => (await slices()).some((slice) => slice.metadata.name === second), { timeoutMs: 30_000 });
    expect((await slices()).map((slice) => slice.spec.pool.generation)).toEqual([4, 4]);
  }, 60_000);

  it('withholds the devices of an unresolved selector instead of passing them to the next config', async () => {
    await admin().delete(resourceTypes.deviceAttributes, { namespace: NAMESPACE, name: 'rail-a' });
    await waitFor('rail-a devices withdrawn', async () => (await deviceNames()).length === 202, { timeoutMs: 30_000 });
    const published = new Set(await deviceNames());
    expect(namesOn('ens1f0').some((name) => published.has(name))).toBe(false);
    await publication.sync();
    const eligibleNow = await publication.eligibleDevices(AbortSignal.timeout(1000));
    expect(namesOn('ens1f0').some((name) => eligibleNow.has(name))).toBe(false);
    await waitFor('the Node warned', async () => (await nodeWarnings('InvalidSriovResourcePolicy')).length > 0, { timeoutMs: 30_000 });
    const [warning, ...others] = await nodeWarnings('InvalidSriovResourcePolicy');
    expect(others).toEqual([]);
    expect(warning?.action).toBe('PublishResourceSlices');
    expect(warning?.reportingController).toBe(DRIVER_NAME);
    expect(warning?.regarding.uid).toBe((await admin().get(resourceTypes.node, { name: NODE })).metadata.uid);
    // The devices by name, the policy and what to change: the four ens1f0 VFs and nothing else.
    expect(warning?.note).toMatch(/^withheld ([0-9a-f-]+, ){3}[0-9a-f-]+: /);
    expect(warning?.note.slice('withheld '.length, warning.note.indexOf(': ')).split(', ')).toEqual(namesOn('ens1f0'));
    expect(warning?.note).toContain('SriovResourcePolicy dra-driver-sriov/rails');
    expect(warning?.note).toContain('deviceAttributesSelector selects no DeviceAttributes object in dra-driver-sriov');
    expect(eventErrors).toEqual([]);
  }, 60_000);

  it('kube-scheduler allocates two VFs on one PCIe root from the published slices', async () => {
    await admin().create(
      resourceTypes.deviceAttributes,
      { apiVersion: DRIVER_API_VERSION, kind: 'DeviceAttributes', metadata: { name: 'rail-a', labels: { rail: 'a' } }, spec: { attributes: {} } },
      { namespace: NAMESPACE },
    );
    await waitFor('rail-a devices published again', async () => (await deviceNames()).length === 206, { timeoutMs: 30_000 });
    await admin().create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: DRIVER_NAME },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }] },
    });
    const pfName = `device.attributes["${DRIVER_NAME}"].PFName`;
    await admin().create(
      resourceTypes.resourceClaimTemplate,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        metadata: { name: 'two-vfs' },
        spec: {
          spec: {
            devices: {
              requests: [
                { name: 'first', exactly: { deviceClassName: DRIVER_NAME, count: 1, selectors: [{ cel: { expression: `${pfName} == "ens1f1"` } }] } },
                { name: 'second', exactly: { deviceClassName: DRIVER_NAME, count: 1, selectors: [{ cel: { expression: `${pfName} != "ens1f1"` } }] } },
              ],
              constraints: [{ requests: ['first', 'second'], matchAttribute: 'resource.kubernetes.io/pcieRoot' }],
            },
          },
        },
      },
      { namespace: 'workloads' },
    );
    await createClaimConsumer(admin(), 'workloads', 'consumer', { resourceClaimTemplateName: 'two-vfs' });
    await waitFor('Pod scheduled', async () => (await readPod(admin(), 'workloads', 'consumer')).spec.nodeName === NODE, { timeoutMs: 60_000 });
    const pod = await readPod(admin(), 'workloads', 'consumer');
    const claim = await readResourceClaim(admin(), 'workloads', pod.status?.resourceClaimStatuses?.[0]?.resourceClaimName ?? '');
    const results = claim.status?.allocation?.devices?.results ?? [];
    const byName = new Map(devices.map((device) => [device.name, device]));
    // "first" is on ens1f1 (pci0000:3a); "second" may come from ens1f0 (same root) or from ens2f0, which
    // has far more VFs but sits on pci0000:17 and sorts first: only the constraint keeps it out.
    expect(results.map((result) => [result.request, result.pool])).toEqual([
      ['first', NODE],
      ['second', NODE],
    ]);
    expect(results.map((result) => byName.get(result.device)?.vf.pf.netdev)).toEqual(['ens1f1', 'ens1f0']);
  }, 120_000);

  it('withholds a device over the attribute budget, warns naming it, and still publishes the others', async () => {
    // The four discovered attributes plus 29 from rail-a make 33, one over the API server's 32 per device.
    const many = Object.fromEntries(Array.from({ length: 29 }, (_, n) => [`example.com/a${String(n)}`, { int: n }]));
    await admin().patch(resourceTypes.deviceAttributes, { namespace: NAMESPACE, name: 'rail-a' }, { spec: { attributes: many } }, contentTypes.mergePatch);
    await waitFor('rail-a devices withheld', async () => (await deviceNames()).length === 202, { timeoutMs: 30_000 });
    const published = new Set(await deviceNames());
    expect(namesOn('ens1f0').some((name) => published.has(name))).toBe(false);
    await publication.sync();
    const eligibleNow = await publication.eligibleDevices(AbortSignal.timeout(1000));
    expect(namesOn('ens1f0').some((name) => eligibleNow.has(name))).toBe(false);
    expect([...namesOn('ens1f1'), ...namesOn('ens2f0')].every((name) => published.has(name))).toBe(true);
    await waitFor('the Node warned', async () => (await nodeWarnings('AttributeBudgetExceeded')).length > 0, { timeoutMs: 30_000 });
    const notes = (await nodeWarnings('AttributeBudgetExceeded')).map((event) => event.note);
    // One Event per distinct reason: each device's message names that device, so one per device here.
    expect(notes.map((note) => note.slice('withheld '.length, note.indexOf(': '))).sort()).toEqual([...namesOn('ens1f0')].sort());
    for (const note of notes) expect(note).toContain('33 attributes and 0 capacities make 33, over the limit of 32');
  }, 60_000);
});
