// The SriovNetwork controller against a real API server (CRDs from the chart): source NAD placement,
// ownership, adoption, namespace moves, the cleanup finalizer, and the Ready condition with its upstream
// reasons. Reconciliation is level-triggered, so each step calls it directly and inspects the stored objects.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { EventRecorder, type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type SriovNetworkReconcilerOptions, reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';

const OPERATOR_NS = 'sriov-network-operator';
const OWNER_REF = 'sriovnetwork.openshift.io/owner-ref';
const RESOURCE_NAME = 'k8s.v1.cni.cncf.io/resourceName';
const LAST_NS = 'operator.sriovnetwork.openshift.io/last-network-namespace';
const FINALIZER = 'netattdef.finalizers.sriovnetwork.openshift.io';

type Condition = { type: string; status: string; reason: string; message: string; observedGeneration: number; lastTransitionTime: string };
type Network = KubeObject & { spec: Record<string, unknown>; status?: { conditions?: Condition[] } };
type Nad = KubeObject & { spec: { config: string } };

let cp: ControlPlane;
let client: KubeClient;
let options: SriovNetworkReconcilerOptions;
let recorder: EventRecorder;

/** The Events recorded about one SriovNetwork, as `<type> <reason>: <note>`, oldest first. */
async function eventsOf(namespace: string, name: string): Promise<string[]> {
  const list = await client.list<KubeObject & { eventTime: string; type: string; reason: string; note: string; regarding: { name: string } }>(
    resourceTypes.event,
    {
      namespace,
    },
  );
  return list.items
    .filter((event) => event.regarding.name === name)
    .toSorted((a, b) => (a.eventTime < b.eventTime ? -1 : a.eventTime > b.eventTime ? 1 : 0))
    .map((event) => `${event.type} ${event.reason}: ${event.note}`);
}

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  for (const ns of [OPERATOR_NS, 'team-a', 'team-c', 'team-d', 'team-e', 'team-f']) await createNamespace(client, ns);
  recorder = new EventRecorder(client, { reportingController: 'sriov-dra/node-policy-operator', reportingInstance: 'test' });
  options = { client, logger: pino({ level: 'silent' }), recorder, operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io' };
}, 120_000);

afterAll(async () => {
  await recorder.close();
  await cp.stop();
});

async function createNetwork(namespace: string, name: string, spec: Record<string, unknown>): Promise<Network> {
  return client.create<Network>(
    resourceTypes.sriovNetwork,
    { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name, namespace }, spec },
    { namespace },
  );
}

const getNetwork = (namespace: string, name: string): Promise<Network> => client.get<Network>(resourceTypes.sriovNetwork, { namespace, name });
const getNad = (namespace: string, name: string): Promise<Nad> => client.get<Nad>(resourceTypes.networkAttachmentDefinition, { namespace, name });

async function nadExists(namespace: string, name: string): Promise<boolean> {
  return getNad(namespace, name).then(
    () => true,
    () => false,
  );
}

function ready(network: Network): Condition | undefined {
  return network.status?.conditions?.find((condition) => condition.type === 'Ready');
}

const reconcile = (namespace: string, name: string) => reconcileSriovNetwork({ namespace, name }, options);

/**
 * TestRendering/simple of the upstream operator for a network named rail-a, after the controller's 4-space
 * indentation, plus the logLevel the CRD defaults to "info" (upstream renders a nonempty logLevel).
 */
const SIMPLE_CONFIG = `{
    "cniVersion": "1.0.0",
    "name": "rail-a",
    "type": "sriov",
    "vlan": 0,
    "vlanQoS": 0,
    "logLevel": "info",
    "ipam": {}
}`;

describe('SriovNetwork controller', () => {
  it('creates the NAD in the network’s own namespace, owned and marked, reports NetworkReady, and then writes nothing', async () => {
    const network = await createNetwork('team-a', 'rail-a', { resourceName: 'rail_a' });
    await expect(reconcile('team-a', 'rail-a')).resolves.toEqual({ kind: 'ready', reason: 'NetworkReady' });

    const nad = await getNad('team-a', 'rail-a');
    expect(nad.spec.config).toBe(SIMPLE_CONFIG);
    expect(nad.metadata.annotations).toEqual({ [RESOURCE_NAME]: 'openshift.io/rail_a', [OWNER_REF]: 'SriovNetwork.sriovnetwork.openshift.io/team-a/rail-a' });
    expect(nad.metadata.ownerReferences).toEqual([
      { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', name: 'rail-a', uid: network.metadata.uid },
    ]);
    const after = await getNetwork('team-a', 'rail-a');
    expect(ready(after)).toMatchObject({ status: 'True', reason: 'NetworkReady', observedGeneration: 1 });
    expect(after.metadata.annotations?.[LAST_NS]).toBe('team-a');
    // Outside the operator namespace the ownerReference does the cleanup: no finalizer.
    expect(after.metadata.finalizers).toBeUndefined();

    await reconcile('team-a', 'rail-a');
    expect((await getNad('team-a', 'rail-a')).metadata.resourceVersion).toBe(nad.metadata.resourceVersion);
    expect((await getNetwork('team-a', 'rail-a')).metadata.resourceVersion).toBe(after.metadata.resourceVersion);
  }, 30_000);

  it('keeps lastTransitionTime while Ready stays True and follows a new generation', async () => {
    const before = ready(await getNetwork('team-a', 'rail-a'));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await client.patch(resourceTypes.sriovNetwork, { namespace: 'team-a', name: 'rail-a' }, { spec: { vlan: 7 } }, 'application/merge-patch+json');
    await reconcile('team-a', 'rail-a');
    const after = ready(await getNetwork('team-a', 'rail-a'));
    expect(after).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect(after?.lastTransitionTime).toBe(before?.lastTransitionTime);
    expect(JSON.parse((await getNad('team-a', 'rail-a')).spec.config)).toMatchObject({ vlan: 7 });
  }, 30_000);

  it('refuses spec.networkNamespace outside the operator namespace: NetworkAttachmentDefinitionInvalid, no NAD, no finalizer', async () => {
    await createNetwork('team-a', 'elsewhere', { resourceName: 'rail_a', networkNamespace: 'team-c' });
    await expect(reconcile('team-a', 'elsewhere')).resolves.toEqual({ kind: 'ready', reason: 'NetworkAttachmentDefinitionInvalid' });
    const network = await getNetwork('team-a', 'elsewhere');
    expect(ready(network)).toMatchObject({
      status: 'False',
      reason: 'NetworkAttachmentDefinitionInvalid',
      message: expect.stringContaining('spec.networkNamespace'),
    });
    expect(network.metadata.finalizers).toBeUndefined();
    expect(await nadExists('team-c', 'elsewhere')).toBe(false);
    expect(await nadExists('team-a', 'elsewhere')).toBe(false);
  }, 30_000);

  it('from the operator namespace: waits for a missing target namespace, follows a namespace change, and cleans up through its finalizer', async () => {
    await createNetwork(OPERATOR_NS, 'rail-b', { resourceName: 'rail_b', networkNamespace: 'team-b' });
    await expect(reconcile(OPERATOR_NS, 'rail-b')).resolves.toEqual({ kind: 'ready', reason: 'NamespaceNotFound' });
    let network = await getNetwork(OPERATOR_NS, 'rail-b');
    expect(network.metadata.finalizers).toEqual([FINALIZER]);
    expect(ready(network)).toMatchObject({ status: 'False', reason: 'NamespaceNotFound', message: 'target namespace "team-b" does not exist' });

    await createNamespace(client, 'team-b');
    await expect(reconcile(OPERATOR_NS, 'rail-b')).resolves.toEqual({ kind: 'ready', reason: 'NetworkReady' });
    await waitFor('both transitions recorded', async () => (await eventsOf(OPERATOR_NS, 'rail-b')).length === 2, { timeoutMs: 10_000 });
    expect(await eventsOf(OPERATOR_NS, 'rail-b')).toEqual([
      'Warning ReadyAdded: target namespace "team-b" does not exist',
      'Normal ReadyChanged: NetworkAttachmentDefinition is provisioned and ready',
    ]);
    const inB = await getNad('team-b', 'rail-b');
    // Across namespaces no ownerReference can exist; the finalizer stands in for it.
    expect(inB.metadata.ownerReferences).toBeUndefined();
    expect(inB.metadata.annotations?.[OWNER_REF]).toBe(`SriovNetwork.sriovnetwork.openshift.io/${OPERATOR_NS}/rail-b`);

    await client.patch(
      resourceTypes.sriovNetwork,
      { namespace: OPERATOR_NS, name: 'rail-b' },
      { spec: { networkNamespace: 'team-c' } },
      'application/merge-patch+json',
    );
    await expect(reconcile(OPERATOR_NS, 'rail-b')).resolves.toEqual({ kind: 'ready', reason: 'NetworkReady' });
    expect(await nadExists('team-c', 'rail-b')).toBe(true);
    expect(await nadExists('team-b', 'rail-b')).toBe(false);
    network = await getNetwork(OPERATOR_NS, 'rail-b');
    expect(network.metadata.annotations?.[LAST_NS]).toBe('team-c');

    await client.delete(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name: 'rail-b' });
    await expect(reconcile(OPERATOR_NS, 'rail-b')).resolves.toEqual({ kind: 'finalized' });
    expect(await nadExists('team-c', 'rail-b')).toBe(false);
    await expect(getNetwork(OPERATOR_NS, 'rail-b')).rejects.toMatchObject({ code: 'ApiNotFound' });
    await expect(reconcile(OPERATOR_NS, 'rail-b')).resolves.toEqual({ kind: 'gone' });
  }, 30_000);

  it('never touches a NAD marked as someone else’s, and says whose it is', async () => {
    const foreign = await client.create<Nad>(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: 'rail-d', namespace: 'team-d', annotations: { [OWNER_REF]: 'SriovIBNetwork.sriovnetwork.openshift.io/team-d/rail-d' } },
        spec: { config: '{"cniVersion":"1.0.0","name":"rail-d","type":"ib-sriov"}' },
      },
      { namespace: 'team-d' },
    );
    await createNetwork('team-d', 'rail-d', { resourceName: 'rail_d' });
    await expect(reconcile('team-d', 'rail-d')).resolves.toEqual({ kind: 'ready', reason: 'NetworkAttachmentDefinitionInvalid' });
    expect(ready(await getNetwork('team-d', 'rail-d'))?.message).toBe(
      "NetworkAttachmentDefinition 'team-d/rail-d' already exists and is owned by SriovIBNetwork.sriovnetwork.openshift.io/team-d/rail-d",
    );
    expect((await getNad('team-d', 'rail-d')).metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
  }, 30_000);

  it('adopts an unmarked NAD: the rendering replaces its config, annotations of others stay', async () => {
    await client.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: 'rail-a', namespace: 'team-e', annotations: { 'example.com/note': 'hand-made' } },
        spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"macvlan"}' },
      },
      { namespace: 'team-e' },
    );
    await createNetwork('team-e', 'rail-a', { resourceName: 'rail_a' });
    await expect(reconcile('team-e', 'rail-a')).resolves.toEqual({ kind: 'ready', reason: 'NetworkReady' });
    const nad = await getNad('team-e', 'rail-a');
    expect(nad.spec.config).toBe(SIMPLE_CONFIG);
    expect(nad.metadata.annotations).toEqual({
      'example.com/note': 'hand-made',
      [RESOURCE_NAME]: 'openshift.io/rail_a',
      [OWNER_REF]: 'SriovNetwork.sriovnetwork.openshift.io/team-e/rail-a',
    });
  }, 30_000);

  it('reports every reason a spec cannot render in one condition and its event, and adds no finalizer', async () => {
    await createNetwork('team-a', 'three-faults', { resourceName: 'rail_a', networkNamespace: 'team-c', ipam: '{"type":', metaPlugins: '{"type":"vrf"},' });
    await expect(reconcile('team-a', 'three-faults')).resolves.toEqual({ kind: 'ready', reason: 'NetworkAttachmentDefinitionInvalid' });
    const network = await getNetwork('team-a', 'three-faults');
    const message = ready(network)?.message ?? '';
    expect([...message.matchAll(/(?:^\d+ problems: |; )(spec\.\w+): (\w+): /g)].map(([, field, code]) => `${field ?? ''}: ${code ?? ''}`)).toEqual([
      'spec.networkNamespace: NetworkAttachmentDefinitionInvalid',
      'spec.ipam: MalformedSriovNetworkJson',
      'spec.metaPlugins: MalformedSriovNetworkJson',
    ]);
    expect(message).toMatch(/^3 problems: /);
    expect(network.metadata.finalizers).toBeUndefined();
    await waitFor('the transition recorded', async () => (await eventsOf('team-a', 'three-faults')).length === 1, { timeoutMs: 10_000 });
    expect(await eventsOf('team-a', 'three-faults')).toEqual([`Warning ReadyAdded: ${message}`]);
  }, 30_000);

  it('reports a spec that cannot render and leaves the NAD as it was', async () => {
    await createNetwork('team-f', 'rail-f', { resourceName: 'rail_f' });
    await reconcile('team-f', 'rail-f');
    const before = await getNad('team-f', 'rail-f');
    await client.patch(resourceTypes.sriovNetwork, { namespace: 'team-f', name: 'rail-f' }, { spec: { ipam: '{"type":' } }, 'application/merge-patch+json');
    await expect(reconcile('team-f', 'rail-f')).resolves.toEqual({ kind: 'ready', reason: 'NetworkAttachmentDefinitionInvalid' });
    const network = await getNetwork('team-f', 'rail-f');
    expect(ready(network)).toMatchObject({ status: 'False', observedGeneration: 2, message: expect.stringContaining('spec.ipam') });
    expect((await getNad('team-f', 'rail-f')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  }, 30_000);
});
