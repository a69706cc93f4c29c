// The node-policy DRA generator on a real API server with the chart's CRDs: the §14.3 two-rail example end
// to end through the SriovNetwork controller, dependency order, invalidation and recovery, no adoption, overlap
// handling, and a steady state that writes nothing. Reconciliation is level-triggered: each step calls it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { describeErrorCode } from '@sriov-dra/contract';
import { type EventRecord, EventRecorder, type KubeClient, type KubeObject, type ObjectReference, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, storeObjectDirectly, waitFor } from '@sriov-dra/k8s/testing';
import type { NodePolicyReconcilerOptions } from '../../src/dra/node-policy-reconciler.ts';
import { type CachedReconciler, startCachedReconciler } from './cached-reconciler.ts';
import { reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';
import { seedNode } from '../cluster-objects.ts';

const OPERATOR_NS = 'sriov-network-operator';
const NODE = 'worker-1';
const RAIL_LABEL = 'networking.example.com/dual-rail';
const GENERATED_BY = 'sriovnetwork.openshift.io/generated-by';
const POLICY_UID = 'sriovnetwork.openshift.io/node-policy-uid';
const NAD_NAME = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
const NAD_NAMESPACE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace';
const RESOURCE_NAME = 'k8s.cni.cncf.io/resourceName';

type Condition = { type: string; status: string; reason: string; message: string; observedGeneration: number };
type Policy = KubeObject & { status?: { conditions?: Condition[] } };
type Attributes = KubeObject & {
  metadata: { managedFields?: { manager: string }[] };
  spec: { attributes: Record<string, unknown> };
};
type ResourcePolicy = KubeObject & {
  spec: { configs?: { deviceAttributesSelector?: { matchLabels?: Record<string, string> }; resourceFilters?: unknown[] }[] };
};

/** A real recorder that also keeps what it was asked to record, in order. */
class RecordingEvents extends EventRecorder {
  readonly recorded: { regarding: ObjectReference; event: EventRecord }[] = [];

  override async record(regarding: ObjectReference, event: EventRecord): Promise<void> {
    this.recorded.push({ regarding, event });
    await super.record(regarding, event);
  }
}

let cp: ControlPlane;
let client: KubeClient;
let options: Omit<NodePolicyReconcilerOptions, 'informers' | 'nodeProblems'>;
let reconciler: CachedReconciler;

const PFS = [
  { name: 'ens1f0', pciAddress: '0000:3b:00.0', bus: '3b' },
  { name: 'ens2f0', pciAddress: '0000:86:00.0', bus: '86' },
];

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
  options = { client, logger: pino({ level: 'silent' }), operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', draEnabled: true };
  await seedNode(
    client,
    OPERATOR_NS,
    NODE,
    { [RAIL_LABEL]: 'true', 'kubernetes.io/hostname': NODE },
    PFS.map((pf) => ({
      name: pf.name,
      pciAddress: pf.pciAddress,
      vendor: '15b3',
      deviceID: '1017',
      Vfs: [0, 1, 2, 3].map((vfID) => ({ pciAddress: `0000:${pf.bus}:00.${String(vfID + 2)}`, vfID, vendor: '15b3', deviceID: '1018' })),
    })),
  );
  reconciler = await startCachedReconciler(options, client);
}, 120_000);

afterAll(async () => {
  await reconciler.stop();
  await cp.stop();
});

function railPolicy(name: string, pfNames: string[], dra: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { name, namespace: OPERATOR_NS },
    spec: {
      resourceName: 'sriov_vfs',
      nodeSelector: { [RAIL_LABEL]: 'true' },
      priority: 99,
      numVfs: 16,
      nicSelector: { vendor: '15b3', pfNames },
      deviceType: 'netdevice',
      linkType: 'eth',
      ...(dra === undefined ? {} : { dra }),
      ...extra,
    },
  };
}

/** Rail A's own attributes, zero values included: published as given, next to the generated ones. */
const RAIL_A_CUSTOM = { 'example.com/rail': { string: 'a' }, 'example.com/numaNode': { int: 0 }, 'example.com/shared': { bool: false } };

const reference = (network: string) => ({
  attributes: {
    'sriovnetwork.openshift.io/sriovNetworkName': { string: network },
    'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: OPERATOR_NS },
  },
});

const createPolicy = (body: Record<string, unknown>): Promise<Policy> =>
  client.create<Policy>(resourceTypes.sriovNetworkNodePolicy, body, { namespace: OPERATOR_NS });
const getPolicy = (name: string): Promise<Policy> => client.get<Policy>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name });
const draReady = async (name: string): Promise<Condition | undefined> =>
  (await getPolicy(name)).status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady');
const attributesOf = async (uid: string): Promise<Attributes | undefined> =>
  client.get<Attributes>(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: `dra-policy-${uid}-attrs` }).catch(() => undefined);
const nodeConfigs = async (): Promise<ResourcePolicy['spec']['configs']> =>
  (await client.get<ResourcePolicy>(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: NODE })).spec.configs;

function railNetwork(name: string, subnet: string): Record<string, unknown> {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetwork',
    metadata: { name, namespace: OPERATOR_NS },
    spec: {
      resourceName: 'sriov_vfs',
      networkNamespace: 'ai-workloads',
      ipam: JSON.stringify({ type: 'whereabouts', network_name: `ai-workloads-${name}`, range: subnet }),
    },
  };
}

const networkReconcile = (name: string) => reconcileSriovNetwork({ namespace: OPERATOR_NS, name }, options);

let railA: Policy;
let railB: Policy;

describe('node-policy DRA generator', () => {
  it('policies applied before their SriovNetworks and namespace: not ready, filters kept, no attributes', async () => {
    railA = await createPolicy(railPolicy('rail-a-policy', ['ens1f0'], { attributes: { ...reference('rail-a-net').attributes, ...RAIL_A_CUSTOM } }));
    railB = await createPolicy(railPolicy('rail-b-policy', ['ens2f0'], reference('rail-b-net')));
    await reconciler.reconcile();
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'False', reason: 'SriovNetworkNotFound', observedGeneration: 1 });
    expect(await draReady('rail-b-policy')).toMatchObject({ status: 'False', reason: 'SriovNetworkNotFound' });
    expect(await attributesOf(railA.metadata.uid)).toBeUndefined();
    // The exact filters and policy selectors stay, so these VFs are unavailable rather than unfiltered.
    expect(await nodeConfigs()).toEqual([
      {
        deviceAttributesSelector: { matchLabels: { [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: railA.metadata.uid } },
        resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }],
      },
      {
        deviceAttributesSelector: { matchLabels: { [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: railB.metadata.uid } },
        resourceFilters: [{ pfPciAddresses: ['0000:86:00.0'] }],
      },
    ]);

    await client.create(resourceTypes.sriovNetwork, railNetwork('rail-a-net', '192.0.2.0/24'), { namespace: OPERATOR_NS });
    await client.create(resourceTypes.sriovNetwork, railNetwork('rail-b-net', '198.51.100.0/24'), { namespace: OPERATOR_NS });
    await networkReconcile('rail-a-net');
    await networkReconcile('rail-b-net');
    await reconciler.reconcile();
    expect(await draReady('rail-a-policy')).toMatchObject({
      status: 'False',
      reason: 'SriovNetworkNotReady',
      message: expect.stringContaining('NamespaceNotFound'),
    });
  }, 60_000);

  it('recovers once the namespace exists: the §14.3 objects, one per rail despite the shared resourceName', async () => {
    await createNamespace(client, 'ai-workloads');
    await networkReconcile('rail-a-net');
    await networkReconcile('rail-b-net');
    await reconciler.reconcile();
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    expect(await draReady('rail-b-policy')).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    const a = await attributesOf(railA.metadata.uid);
    expect(a?.metadata.labels).toEqual({ [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: railA.metadata.uid });
    expect(a?.spec.attributes).toEqual({
      ...RAIL_A_CUSTOM,
      [RESOURCE_NAME]: { string: 'openshift.io/sriov_vfs' },
      [NAD_NAME]: { string: 'rail-a-net' },
      [NAD_NAMESPACE]: { string: 'ai-workloads' },
    });
    expect((await attributesOf(railB.metadata.uid))?.spec.attributes[NAD_NAME]).toEqual({ string: 'rail-b-net' });
    // A legacy pool selector (the upstream per-resourceName object's label) matches neither rail's object.
    const legacy = await client.list(resourceTypes.deviceAttributes, {
      namespace: OPERATOR_NS,
      labelSelector: 'sriovnetwork.openshift.io/resource-pool=sriov_vfs',
    });
    expect(legacy.items).toEqual([]);
  }, 60_000);

  it('a second reconciliation of an unchanged cluster writes nothing', async () => {
    const summary = await reconciler.reconcile();
    expect({ applied: summary.applied, deleted: summary.deleted, statusWrites: summary.statusWrites, failures: summary.failures }).toEqual({
      applied: 0,
      deleted: 0,
      statusWrites: 0,
      failures: [],
    });
  }, 30_000);

  it('a node joining rewrites no policy’s condition; one without a SriovNetworkNodeState is reported on that node alone', async () => {
    const recorder = new RecordingEvents(client, { reportingController: 'sriov-dra/node-policy-operator', reportingInstance: 'test' });
    const before = await draReady('rail-a-policy');
    await seedNode(client, OPERATOR_NS, 'worker-3', { [RAIL_LABEL]: 'true', 'kubernetes.io/hostname': 'worker-3' }, [
      { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', deviceID: '1017', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
    ]);
    const joined = await reconciler.reconcile({ recorder });
    expect(joined.applied).toBe(1);
    expect(joined.statusWrites).toBe(0);
    expect(await draReady('rail-a-policy')).toEqual(before);

    // A labelled node the config daemon has not reported yet.
    const bare = await client.create(resourceTypes.node, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'worker-4', labels: { [RAIL_LABEL]: 'true', 'kubernetes.io/hostname': 'worker-4' } },
    });
    const unreported = await reconciler.reconcile({ recorder });
    expect(unreported.statusWrites).toBe(0);
    for (const name of ['rail-a-policy', 'rail-b-policy']) expect(await draReady(name)).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    const worker4 = await client.get<ResourcePolicy>(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: 'worker-4' });
    expect(worker4.spec.configs).toEqual([]);
    expect(recorder.recorded.filter(({ regarding }) => regarding.kind !== 'Node')).toEqual([]);
    await waitFor(
      'the node’s Warning Event',
      async () =>
        (
          await client.list<KubeObject & { regarding: { uid: string }; type: string; reason: string }>(resourceTypes.event, { namespace: 'default' })
        ).items.some((event) => event.regarding.uid === bare.metadata.uid && event.type === 'Warning' && event.reason === 'NodeInventoryUnavailable'),
      { timeoutMs: 10_000 },
    );
    // Lasting trouble is recorded once, not again by every reconciliation while it lasts.
    expect((await reconciler.reconcile({ recorder })).applied).toBe(0);
    expect(recorder.recorded.filter(({ regarding }) => regarding.name === 'worker-4')).toHaveLength(1);
    await recorder.close();

    for (const name of ['worker-3', 'worker-4']) {
      await client.delete(resourceTypes.node, { name });
      await client.delete(resourceTypes.sriovNetworkNodeState, { namespace: OPERATOR_NS, name }).catch(() => undefined);
    }
    await reconciler.reconcile();
    expect(await draReady('rail-a-policy')).toEqual(before);
  }, 60_000);

  it('a node with a 253-character name gets its config, and one that no label can select is reported on the node', async () => {
    const recorder = new RecordingEvents(client, { reportingController: 'sriov-dra/node-policy-operator', reportingInstance: 'test' });
    // Node names are DNS subdomains of up to 253 characters; label values, the hostname label's included, hold 63.
    const longName = (last: string) => ['rack-7', 'a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), last.repeat(54)].join('.');
    const labelled = longName('d');
    const unlabelled = longName('e');
    expect(labelled).toHaveLength(253);
    const inventory = [{ name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', deviceID: '1017', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] }];
    await seedNode(client, OPERATOR_NS, labelled, { [RAIL_LABEL]: 'true', 'kubernetes.io/hostname': 'rack-7-host-d' }, inventory);
    await seedNode(client, OPERATOR_NS, unlabelled, { [RAIL_LABEL]: 'true' }, inventory);

    const summary = await reconciler.reconcile({ recorder });
    expect(summary.failures).toEqual([]);
    const config = await client.get<ResourcePolicy & { spec: { nodeSelector?: unknown } }>(resourceTypes.sriovResourcePolicy, {
      namespace: OPERATOR_NS,
      name: labelled,
    });
    expect(config.metadata.labels?.[GENERATED_BY]).toBe('sriov-network-operator');
    expect(config.metadata.labels?.['sriovnetwork.openshift.io/node']).toMatch(/^rack-7\.a{33}-[0-9a-f]{16}$/);
    expect(config.spec.nodeSelector).toEqual({
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['rack-7-host-d'] }] }],
    });
    expect(config.spec.configs).toEqual([
      {
        deviceAttributesSelector: { matchLabels: { [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: railA.metadata.uid } },
        resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }],
      },
    ]);
    // A selector value the driver could not read would make it withhold every node's devices: none is written.
    await expect(client.get(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: unlabelled })).rejects.toMatchObject({ code: 'ApiNotFound' });
    expect(recorder.recorded.map(({ regarding, event }) => [regarding.kind, regarding.name, event.reason])).toEqual([
      ['Node', unlabelled, 'NodeNotSelectable'],
    ]);
    for (const name of ['rail-a-policy', 'rail-b-policy']) expect(await draReady(name)).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    await recorder.close();

    for (const name of [labelled, unlabelled]) {
      await client.delete(resourceTypes.node, { name });
      await client.delete(resourceTypes.sriovNetworkNodeState, { namespace: OPERATOR_NS, name });
    }
    await reconciler.reconcile();
    await expect(client.get(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: labelled })).rejects.toMatchObject({ code: 'ApiNotFound' });
  }, 60_000);

  it('takes back a generated object another manager edited: its values restored, its additions removed, nothing left to the editor', async () => {
    const name = `dra-policy-${railA.metadata.uid}-attrs`;
    const desired = (await attributesOf(railA.metadata.uid))?.spec.attributes;
    // A hand edit pointing rail A's VFs at rail B's network, plus an attribute and a label nobody generated.
    await client.patch(
      resourceTypes.deviceAttributes,
      { namespace: OPERATOR_NS, name },
      JSON.stringify({
        apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
        kind: 'DeviceAttributes',
        metadata: { name, namespace: OPERATOR_NS, labels: { 'example.com/edited': 'true' } },
        spec: { attributes: { [NAD_NAME]: { string: 'rail-b-net' }, 'example.com/extra': { string: 'x' } } },
      }),
      'application/apply-patch+yaml',
      { fieldManager: 'someone-else', force: true },
    );
    // And the node's configs swapped so that rail A's PF selects rail B's attributes.
    const configs = await nodeConfigs();
    await client.patch(
      resourceTypes.sriovResourcePolicy,
      { namespace: OPERATOR_NS, name: NODE },
      { spec: { configs: [{ ...configs?.[0], deviceAttributesSelector: configs?.[1]?.deviceAttributesSelector }] } },
      'application/merge-patch+json',
      { fieldManager: 'kubectl-edit' },
    );

    const summary = await reconciler.reconcile();
    expect(summary.failures).toEqual([]);
    const restored = await attributesOf(railA.metadata.uid);
    expect(restored?.spec.attributes).toEqual(desired);
    expect(restored?.metadata.labels).toEqual({ [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: railA.metadata.uid });
    expect(restored?.metadata.managedFields?.map((entry) => entry.manager)).not.toContain('someone-else');
    expect(await nodeConfigs()).toEqual(configs);
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    // Taken back for good: the next reconciliation finds nothing to write.
    expect((await reconciler.reconcile()).applied).toBe(0);
  }, 60_000);

  it.each([
    ['a changed NAD config', { spec: { config: '{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov"}' } }, 'differs from what'],
    ['a removed owner marker', { metadata: { annotations: { 'sriovnetwork.openshift.io/owner-ref': null } } }, 'owner marker'],
  ])(
    '%s invalidates only that rail until the SriovNetwork controller restores it',
    async (_case, patch, message) => {
      await client.patch(resourceTypes.networkAttachmentDefinition, { namespace: 'ai-workloads', name: 'rail-a-net' }, patch, 'application/merge-patch+json');
      await reconciler.reconcile();
      expect(await draReady('rail-a-policy')).toMatchObject({ status: 'False', reason: 'SourceNADNotReady', message: expect.stringContaining(message) });
      expect(await attributesOf(railA.metadata.uid)).toBeUndefined();
      expect(await draReady('rail-b-policy')).toMatchObject({ status: 'True' });
      expect(await nodeConfigs()).toHaveLength(2);

      await networkReconcile('rail-a-net');
      await reconciler.reconcile();
      expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True' });
      expect(await attributesOf(railA.metadata.uid)).toBeDefined();
    },
    60_000,
  );

  it('a source NAD being deleted is not ready', async () => {
    await client.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'ai-workloads', name: 'rail-b-net' },
      { metadata: { finalizers: ['example.com/hold'] } },
      'application/merge-patch+json',
    );
    await client.delete(resourceTypes.networkAttachmentDefinition, { namespace: 'ai-workloads', name: 'rail-b-net' });
    await reconciler.reconcile();
    expect(await draReady('rail-b-policy')).toMatchObject({
      status: 'False',
      reason: 'SourceNADNotReady',
      message: expect.stringContaining('is being deleted'),
    });
    expect(await attributesOf(railB.metadata.uid)).toBeUndefined();
    await client.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'ai-workloads', name: 'rail-b-net' },
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await networkReconcile('rail-b-net');
    await reconciler.reconcile();
    expect(await draReady('rail-b-policy')).toMatchObject({ status: 'True' });
  }, 60_000);

  it('a SriovNetwork replaced under the same name (new UID) does not inherit its predecessor’s NAD', async () => {
    // In its own namespace the NAD carries an ownerReference to the SriovNetwork's UID.
    await createNamespace(client, 'team-x');
    const make = () =>
      client.create(
        resourceTypes.sriovNetwork,
        {
          apiVersion: 'sriovnetwork.openshift.io/v1',
          kind: 'SriovNetwork',
          metadata: { name: 'rail-x-net', namespace: 'team-x' },
          spec: { resourceName: 'sriov_vfs' },
        },
        { namespace: 'team-x' },
      );
    const first = await make();
    await reconcileSriovNetwork({ namespace: 'team-x', name: 'rail-x-net' }, options);
    await createPolicy(
      railPolicy('rail-x-policy', ['ens9f9'], {
        attributes: {
          'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-x-net' },
          'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'team-x' },
        },
      }),
    );
    await reconciler.reconcile();
    expect(await draReady('rail-x-policy')).toMatchObject({ status: 'True' });

    // No garbage collector runs here, so the NAD outlives the deleted SriovNetwork, as it may for a while.
    await client.delete(resourceTypes.sriovNetwork, { namespace: 'team-x', name: 'rail-x-net' });
    const second = await make();
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    // Even a Ready condition for its generation (written here in the controller's stead) does not make the old NAD its own.
    await client.patch(
      resourceTypes.sriovNetwork,
      { namespace: 'team-x', name: 'rail-x-net', subresource: 'status' },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'NetworkReady', message: 'm', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' },
          ],
        },
      },
      'application/merge-patch+json',
    );
    await reconciler.reconcile();
    expect(await draReady('rail-x-policy')).toMatchObject({
      status: 'False',
      reason: 'SourceNADNotReady',
      message: expect.stringContaining(first.metadata.uid),
    });

    await reconcileSriovNetwork({ namespace: 'team-x', name: 'rail-x-net' }, options);
    await reconciler.reconcile();
    expect(await draReady('rail-x-policy')).toMatchObject({ status: 'True' });
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-x-policy' });
  }, 60_000);

  it('a SriovNetwork Ready for an older generation is not ready', async () => {
    await client.patch(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name: 'rail-b-net' }, { spec: { vlan: 12 } }, 'application/merge-patch+json');
    await reconciler.reconcile();
    expect(await draReady('rail-b-policy')).toMatchObject({
      status: 'False',
      reason: 'SriovNetworkNotReady',
      message: expect.stringContaining('generation 1'),
    });
    await networkReconcile('rail-b-net');
    await reconciler.reconcile();
    expect(await draReady('rail-b-policy')).toMatchObject({ status: 'True' });
  }, 60_000);

  it('a recreated policy gets a new object, the old one is cleaned up, and an unowned same-name object is never adopted', async () => {
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-b-policy' });
    const recreated = await createPolicy(railPolicy('rail-b-policy', ['ens2f0'], reference('rail-b-net')));
    const squatter = await client.create<Attributes>(
      resourceTypes.deviceAttributes,
      {
        apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
        kind: 'DeviceAttributes',
        metadata: { name: `dra-policy-${recreated.metadata.uid}-attrs`, namespace: OPERATOR_NS },
        spec: { attributes: { 'example.com/owner': { string: 'someone-else' } } },
      },
      { namespace: OPERATOR_NS },
    );
    await reconciler.reconcile();
    expect(await attributesOf(railB.metadata.uid)).toBeUndefined();
    expect(await draReady('rail-b-policy')).toMatchObject({
      status: 'False',
      reason: 'DRAConfigurationSyncFailed',
      message: expect.stringContaining('not adopted'),
    });
    expect((await attributesOf(recreated.metadata.uid))?.metadata.resourceVersion).toBe(squatter.metadata.resourceVersion);

    await client.delete(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: squatter.metadata.name });
    await reconciler.reconcile();
    expect(await draReady('rail-b-policy')).toMatchObject({ status: 'True' });
    railB = recreated;
  }, 60_000);

  it('an overlapping policy withdraws the node’s configs and says which VF is shared', async () => {
    await createPolicy(railPolicy('overlap-policy', ['ens1f0#0-1'], { attributes: { 'example.com/tier': { string: 'gold' } } }));
    await reconciler.reconcile();
    expect(await nodeConfigs()).toEqual([]);
    for (const name of ['rail-a-policy', 'rail-b-policy', 'overlap-policy']) {
      expect(await draReady(name)).toMatchObject({ status: 'False', reason: 'ConflictingDRAMapping' });
    }
    expect((await draReady('rail-a-policy'))?.message).toContain('0000:3b:00.2');
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'overlap-policy' });
    await reconciler.reconcile();
    expect(await nodeConfigs()).toHaveLength(2);
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True' });
  }, 60_000);

  it('a policy without spec.dra sharing a VF with a managed one is an overlap too', async () => {
    await createPolicy(railPolicy('legacy-overlap-policy', ['ens1f0#2-3'], undefined));
    await reconciler.reconcile();
    expect(await nodeConfigs()).toEqual([]);
    expect(await draReady('rail-a-policy')).toMatchObject({
      status: 'False',
      reason: 'ConflictingDRAMapping',
      message: expect.stringContaining('policies legacy-overlap-policy and rail-a-policy both select VF 0000:3b:00.4 on node worker-1'),
    });
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'legacy-overlap-policy' });
    await reconciler.reconcile();
    expect(await nodeConfigs()).toHaveLength(2);
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True' });
  }, 60_000);

  it('a map stored past today’s validation publishes nothing and names every faulty key', async () => {
    // The CRD's CEL rejects these keys at admission; an object stored before those rules existed still carries them.
    const invalid = await storeObjectDirectly(
      cp.etcdEndpoint,
      resourceTypes.sriovNetworkNodePolicy,
      railPolicy('invalid-policy', ['ens9f0'], {
        attributes: { tier: { int: 1 }, [RESOURCE_NAME]: { string: 'mine' }, 'example.com/label': { string: 'a'.repeat(65) } },
      }) as never,
    );
    await waitFor(
      'the stored policy served',
      () =>
        getPolicy('invalid-policy').then(
          () => true,
          () => false,
        ),
      { timeoutMs: 10_000 },
    );
    await reconciler.reconcile();
    const remedy = (code: 'InvalidDRAAttribute' | 'ReservedDRAAttribute') => describeErrorCode(code).remedy;
    // Read back through the API server, the map's keys come sorted.
    expect(await draReady('invalid-policy')).toMatchObject({
      status: 'False',
      reason: 'InvalidDRAAttribute',
      message:
        `3 problems: spec.dra.attributes["example.com/label"].string: InvalidDRAAttribute: must be at most 64 bytes in UTF-8 \u2014 ${remedy('InvalidDRAAttribute')}; ` +
        `spec.dra.attributes["${RESOURCE_NAME}"]: ReservedDRAAttribute: key ${RESOURCE_NAME} is owned by discovery or generated by the operator \u2014 ${remedy('ReservedDRAAttribute')}; ` +
        `spec.dra.attributes["tier"]: InvalidDRAAttribute: key "tier" is not <DNS subdomain of at most 63>/<C identifier of at most 32> \u2014 ${remedy('InvalidDRAAttribute')}`,
    });
    expect(await attributesOf(invalid.metadata.uid)).toBeUndefined();
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'invalid-policy' });
  }, 30_000);

  it('the bootstrap policy may not carry spec.dra', async () => {
    await createPolicy({ ...railPolicy('default', ['ens9f1'], {}) });
    await reconciler.reconcile();
    expect(await draReady('default')).toMatchObject({
      status: 'False',
      reason: 'InvalidDRAAttribute',
      message: expect.stringContaining('DRABlockOnDefaultPolicy'),
    });
    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'default' });
  }, 30_000);

  it('a policy without spec.dra gets its resourceName pool as upstream generates it, and loses it with the last such policy', async () => {
    await seedNode(client, OPERATOR_NS, 'worker-2', { legacy: 'true' }, [
      { name: 'ens3f0', pciAddress: '0000:af:00.0', Vfs: [{ pciAddress: '0000:af:00.2', vfID: 0 }] },
    ]);
    const independent = await client.create(
      resourceTypes.deviceAttributes,
      {
        apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
        kind: 'DeviceAttributes',
        metadata: { name: 'site-overlay', namespace: OPERATOR_NS, labels: { 'sriovnetwork.openshift.io/resource-pool': 'legacy-nic' } },
        spec: { attributes: { 'example.com/site': { string: 'east' } } },
      },
      { namespace: OPERATOR_NS },
    );
    await createPolicy({
      ...railPolicy('legacy-policy', ['ens3f0'], undefined),
      spec: { resourceName: 'legacy_nic', nodeSelector: { legacy: 'true' }, numVfs: 1, nicSelector: { pfNames: ['ens3f0'] }, deviceType: 'vfio-pci' },
    });
    await reconciler.reconcile();
    const pool = await client.get<Attributes>(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: 'legacy-nic-attrs' });
    expect(pool.metadata.labels).toEqual({ [GENERATED_BY]: 'sriov-network-operator', 'sriovnetwork.openshift.io/resource-pool': 'legacy-nic' });
    expect(pool.spec.attributes).toEqual({ [RESOURCE_NAME]: { string: 'openshift.io/legacy_nic' } });
    const worker2 = await client.get<ResourcePolicy>(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: 'worker-2' });
    expect(worker2.metadata.labels).toEqual({ [GENERATED_BY]: 'sriov-network-operator', 'sriovnetwork.openshift.io/node': 'worker-2' });
    expect(worker2.spec.configs).toEqual([
      {
        deviceAttributesSelector: { matchLabels: { 'sriovnetwork.openshift.io/resource-pool': 'legacy-nic' } },
        resourceFilters: [{ pfPciAddresses: ['0000:af:00.0'], drivers: ['vfio-pci'] }],
      },
    ]);

    await client.delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'legacy-policy' });
    await reconciler.reconcile();
    await expect(client.get(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: 'legacy-nic-attrs' })).rejects.toMatchObject({
      code: 'ApiNotFound',
    });
    await expect(client.get(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: 'worker-2' })).rejects.toMatchObject({ code: 'ApiNotFound' });
    // An object this operator did not generate stays, whatever labels it carries.
    expect((await client.get(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: 'site-overlay' })).metadata.resourceVersion).toBe(
      independent.metadata.resourceVersion,
    );
  }, 60_000);

  it('with the DRA provider disabled, a valid block is staged: DRAInactive, nothing generated for it', async () => {
    await reconciler.reconcile({ draEnabled: false });
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'False', reason: 'DRAInactive' });
    await reconciler.reconcile();
    expect(await draReady('rail-a-policy')).toMatchObject({ status: 'True' });
  }, 30_000);
});
