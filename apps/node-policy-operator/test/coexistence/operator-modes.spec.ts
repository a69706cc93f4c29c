// The operator's two modes on a cluster that already holds the SR-IOV network operator's CRDs and objects
// (docs/coexistence.md), its node states among them, stored under upstream's own CRD schema; each mode run as
// the chart deploys it (its environment through the real flag parser, its RBAC alone):
// - standalone renders every SriovNetwork's NAD as before, with the cleanup finalizer and Ready;
// - alongside-upstream generates the DRA objects from a policy referencing an upstream-rendered NAD, and
//   writes nothing on NADs or SriovNetworks (counted in the API server's audit log, whatever RBAC allows),
//   with a chart that grants no such writes; it neither watches Namespaces nor is granted to (only the
//   SriovNetwork controller, which does not run, reads them); an object upstream's own DRA provider
//   generated is left alone;
// - switching a running standalone installation to alongside-upstream leaves the NADs, finalizers and
//   conditions it wrote for upstream's controller to take over.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, freePort, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import type { Operator } from '../../src/operator.ts';
import { draReference, nodePolicyBody } from '../cluster-objects.ts';
import {
  NAD_CLEANUP_FINALIZER,
  type NadObject,
  type NetworkObject,
  OPERATOR_NS,
  RAIL_A_CONFIG,
  applyRbac,
  auditMark,
  compactConfig,
  createRailNetwork,
  nadPlace,
  namespaceRequests,
  networkWrites,
  operatorMay,
  renderOperator,
  sampleNetworks,
  seedUpstreamCluster,
  seedUpstreamNode,
  startRenderedOperator,
  writeAsUpstream,
} from './upstream-cluster.ts';

const NAD_NAME = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
const NAD_NAMESPACE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace';

/**
 * The upstream sample network upstream's controller has not reconciled yet: no NAD, no finalizer, no
 * condition. It lives in the operator namespace and places its NAD in another, so the standalone operator
 * would give it both.
 */
const UNRECONCILED = { namespace: OPERATOR_NS, name: 'app-specific-net' };

/** A quiet period after the DRA objects are in place, for any write a wrongly started controller would make. */
const QUIET_MS = 3_000;

interface WithConditions extends KubeObject {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason: string; readonly message?: string }[] };
}
type AttributesObject = KubeObject & { spec: { attributes: Record<string, unknown> } };
type ResourcePolicyObject = KubeObject & { spec: { configs: { resourceFilters: unknown[] }[] } };

/** The rail network and a node policy referencing it through spec.dra, on port 0 of worker-1's NIC. */
async function createRail(admin: KubeClient): Promise<NetworkObject> {
  await seedUpstreamNode(admin, 'worker-1', { rail: 'true' });
  const network = await createRailNetwork(admin);
  await admin.create(
    resourceTypes.sriovNetworkNodePolicy,
    nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
      resourceName: 'rail_a',
      nodeSelector: { rail: 'true' },
      numVfs: 4,
      nicSelector: { pfNames: ['ens1f0'] },
      dra: draReference(OPERATOR_NS, 'rail-a-net'),
    }),
    { namespace: OPERATOR_NS },
  );
  return network;
}

async function draReason(admin: KubeClient): Promise<string | undefined> {
  const policy = await admin.get<WithConditions>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
  return policy.status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady')?.reason;
}

async function railAttributes(admin: KubeClient): Promise<Record<string, unknown> | undefined> {
  const policy = await admin.get(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
  const object = await admin
    .get<AttributesObject>(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: `dra-policy-${policy.metadata.uid}-attrs` })
    .catch(() => undefined);
  return object?.spec.attributes;
}

/** namespace/name → resourceVersion of every NAD and SriovNetwork. */
async function versions(admin: KubeClient): Promise<Map<string, string>> {
  const entries = async (type: ResourceType): Promise<[string, string][]> =>
    (await admin.list(type)).items.map((object) => [
      `${type.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`,
      object.metadata.resourceVersion,
    ]);
  return new Map([...(await entries(resourceTypes.networkAttachmentDefinition)), ...(await entries(resourceTypes.sriovNetwork))]);
}

async function network(admin: KubeClient, at: { namespace: string; name: string }): Promise<NetworkObject> {
  return admin.get<NetworkObject>(resourceTypes.sriovNetwork, at);
}

async function nad(admin: KubeClient, at: { namespace: string; name: string }): Promise<NadObject | undefined> {
  return admin.get<NadObject>(resourceTypes.networkAttachmentDefinition, at).catch(() => undefined);
}

const quiet = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

describe('alongside-upstream, on a cluster the SR-IOV network operator runs', () => {
  let cp: ControlPlane;
  let operator: Operator | undefined;
  const admin = () => cp.adminClient;

  beforeAll(async () => {
    cp = await startControlPlane({ audit: true });
    await seedUpstreamCluster(admin());
    const rail = await createRail(admin());
    // Upstream reconciled every network but one: compact configs for the samples, its own rendering for the rail.
    for (const sample of await sampleNetworks(admin())) {
      if (sample.metadata.namespace === UNRECONCILED.namespace && sample.metadata.name === UNRECONCILED.name) continue;
      await writeAsUpstream(admin(), sample, compactConfig(sample));
    }
    await writeAsUpstream(admin(), rail, RAIL_A_CONFIG);
    await applyRbac(admin(), renderOperator('alongside-upstream', 8081).rbac);
  }, 180_000);

  afterAll(async () => {
    await operator?.stop();
    await cp.stop();
  }, 60_000);

  it('the chart grants no NAD write and no SriovNetwork patch in this mode', async () => {
    const nads = { group: 'k8s.cni.cncf.io', resource: 'network-attachment-definitions', namespace: 'ai-workloads' };
    const networks = { group: 'sriovnetwork.openshift.io', resource: 'sriovnetworks', namespace: OPERATOR_NS };
    const refused = [
      ['create', nads],
      ['patch', nads],
      ['update', nads],
      ['delete', nads],
      ['patch', networks],
      ['update', networks],
      ['patch', { ...networks, subresource: 'status' }],
    ] as const;
    for (const [verb, resource] of refused) expect([verb, resource, await operatorMay(admin(), verb, resource)]).toEqual([verb, resource, false]);
    for (const verb of ['get', 'list', 'watch']) {
      expect(await operatorMay(admin(), verb, nads)).toBe(true);
      expect(await operatorMay(admin(), verb, networks)).toBe(true);
      expect([verb, await operatorMay(admin(), verb, { group: '', resource: 'namespaces' })]).toEqual([verb, false]);
    }
  });

  it('generates the DRA objects from the upstream-rendered NAD and leaves every NAD and SriovNetwork as upstream wrote it', async () => {
    const before = await versions(admin());
    const mark = await auditMark(cp);
    const { deployment } = renderOperator('alongside-upstream', await freePort());
    operator = await startRenderedOperator(cp, deployment, 'node-policy-operator-alongside-1');

    await waitFor('the rail policy’s DRA configuration applied', async () => (await draReason(admin())) === 'DRAConfigurationApplied', { timeoutMs: 30_000 });
    const attributes = await railAttributes(admin());
    expect(attributes?.[NAD_NAME]).toEqual({ string: 'rail-a-net' });
    expect(attributes?.[NAD_NAMESPACE]).toEqual({ string: 'ai-workloads' });
    const resourcePolicies = (await admin().list<ResourcePolicyObject>(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS })).items;
    expect(resourcePolicies.map((item) => item.metadata.name)).toEqual(['worker-1']);
    // The node state as upstream stored it: the policy's pfNames select port 0 of the NIC, by its PCI address.
    expect(resourcePolicies[0]?.spec.configs.map((config) => config.resourceFilters)).toEqual([[{ pfPciAddresses: ['0000:3b:00.0'] }]]);
    await quiet();

    expect(await versions(admin())).toEqual(before);
    expect((await nad(admin(), { namespace: 'ai-workloads', name: 'rail-a-net' }))?.spec.config).toBe(RAIL_A_CONFIG);
    const unreconciled = await network(admin(), UNRECONCILED);
    expect(unreconciled.metadata.finalizers ?? []).toEqual([]);
    expect(unreconciled.status?.conditions ?? []).toEqual([]);
    expect(await nad(admin(), nadPlace(unreconciled))).toBeUndefined();
    expect(await networkWrites(cp, mark)).toEqual([]);
    // Every informer lists at start, so one opened on Namespaces would have asked by now, refused or not.
    expect(await namespaceRequests(cp, mark)).toEqual([]);
  }, 90_000);

  it('leaves an object the SR-IOV network operator’s own DRA provider generated, and says so on the policy that needs its name', async () => {
    // Upstream's DRA provider labels its per-node SriovResourcePolicy as this operator does, owned by its SriovOperatorConfig.
    const theirs = await admin().create(
      resourceTypes.sriovResourcePolicy,
      {
        apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
        kind: 'SriovResourcePolicy',
        metadata: {
          name: 'worker-2',
          namespace: OPERATOR_NS,
          labels: { 'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator' },
          ownerReferences: [
            {
              apiVersion: 'sriovnetwork.openshift.io/v1',
              kind: 'SriovOperatorConfig',
              name: 'default',
              uid: '9b0c1f7e-4c61-4a51-8d0e-3f1c2a7b5d10',
              controller: true,
            },
          ],
        },
        spec: {
          nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['worker-2'] }] }] },
          configs: [],
        },
      },
      { namespace: OPERATOR_NS },
    );
    const mark = await auditMark(cp);
    await seedUpstreamNode(admin(), 'worker-2', { rail: 'true' });
    await waitFor('the rail policy’s sync failure', async () => (await draReason(admin())) === 'DRAConfigurationSyncFailed', { timeoutMs: 30_000 });
    const policy = await admin().get<WithConditions>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
    expect(policy.status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady')?.message).toContain(
      `SriovResourcePolicy ${OPERATOR_NS}/worker-2 was generated by the SR-IOV network operator's own DRA provider`,
    );
    const after = await admin().get(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: 'worker-2' });
    expect(after.metadata.resourceVersion).toBe(theirs.metadata.resourceVersion);
    expect(await networkWrites(cp, mark)).toEqual([]);
  }, 60_000);
});

describe('standalone, then switched to alongside-upstream', () => {
  let cp: ControlPlane;
  const operators: Operator[] = [];
  const admin = () => cp.adminClient;
  let samples: NetworkObject[];

  beforeAll(async () => {
    cp = await startControlPlane({ audit: true });
    await seedUpstreamCluster(admin());
    await createRail(admin());
    // Upstream's operator ran before this one replaces it: the NADs it left, in compact JSON.
    samples = await sampleNetworks(admin());
    for (const sample of samples) {
      if (sample.metadata.namespace === UNRECONCILED.namespace && sample.metadata.name === UNRECONCILED.name) continue;
      await writeAsUpstream(admin(), sample, compactConfig(sample));
    }
  }, 180_000);

  afterAll(async () => {
    for (const operator of operators) await operator.stop();
    await cp.stop();
  }, 60_000);

  it('standalone renders each SriovNetwork’s NAD with the cleanup finalizer and Ready, and generates the DRA objects', async () => {
    const { rbac, deployment } = renderOperator('standalone', await freePort());
    await applyRbac(admin(), rbac);
    const before = await versions(admin());
    operators.push(await startRenderedOperator(cp, deployment, 'node-policy-operator-standalone-1'));

    await waitFor('the rail policy’s DRA configuration applied', async () => (await draReason(admin())) === 'DRAConfigurationApplied', { timeoutMs: 30_000 });
    expect((await nad(admin(), { namespace: 'ai-workloads', name: 'rail-a-net' }))?.spec.config).toBe(RAIL_A_CONFIG);
    expect((await network(admin(), { namespace: OPERATOR_NS, name: 'rail-a-net' })).metadata.finalizers).toEqual([NAD_CLEANUP_FINALIZER]);
    await waitFor(
      'the unreconciled network’s NAD, finalizer and Ready',
      async () => {
        const unreconciled = await network(admin(), UNRECONCILED);
        return (
          (unreconciled.metadata.finalizers ?? []).includes(NAD_CLEANUP_FINALIZER) &&
          unreconciled.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true &&
          (await nad(admin(), nadPlace(unreconciled))) !== undefined
        );
      },
      { timeoutMs: 30_000 },
    );
    // Every sample NAD upstream left is rewritten in this operator's rendering (same owner marker: adopted).
    for (const sample of samples) {
      if (sample.metadata.namespace === UNRECONCILED.namespace && sample.metadata.name === UNRECONCILED.name) continue;
      const place = nadPlace(sample);
      await waitFor(
        `${place.namespace}/${place.name} rewritten`,
        async () => {
          const found = await nad(admin(), place);
          return found !== undefined && found.metadata.resourceVersion !== before.get(`NetworkAttachmentDefinition ${place.namespace}/${place.name}`);
        },
        { timeoutMs: 30_000 },
      );
      expect((await nad(admin(), place))?.spec.config).not.toBe(compactConfig(sample));
    }
    // Standalone watches Namespaces under the chart's grant: what the audit check of the alongside operator would see.
    expect(await namespaceRequests(cp)).toEqual(expect.arrayContaining(['list 200', 'watch 200']));
  }, 90_000);

  it('after the switch, the NADs, finalizers and conditions standalone wrote stay as they are, and the DRA objects keep following the policies', async () => {
    const standalone = operators.pop();
    await standalone?.stop();
    const { rbac, deployment } = renderOperator('alongside-upstream', await freePort());
    await applyRbac(admin(), rbac);
    const before = await versions(admin());
    const mark = await auditMark(cp);
    operators.push(await startRenderedOperator(cp, deployment, 'node-policy-operator-alongside-1'));

    // A policy change after the switch: the alongside operator picks it up.
    await admin().patch(
      resourceTypes.sriovNetworkNodePolicy,
      { namespace: OPERATOR_NS, name: 'rail-a-policy' },
      { spec: { dra: draReference(OPERATOR_NS, 'rail-a-net', { 'example.com/rail': { string: 'a' } }) } },
      'application/merge-patch+json',
    );
    await waitFor('the new attribute published', async () => JSON.stringify((await railAttributes(admin()))?.['example.com/rail']) === '{"string":"a"}', {
      timeoutMs: 30_000,
    });
    await quiet();

    const after = await versions(admin());
    for (const [key, version] of before) if (key.startsWith('NetworkAttachmentDefinition')) expect([key, after.get(key)]).toEqual([key, version]);
    for (const [key, version] of before) if (key.startsWith('SriovNetwork ')) expect([key, after.get(key)]).toEqual([key, version]);
    expect((await network(admin(), UNRECONCILED)).metadata.finalizers).toEqual([NAD_CLEANUP_FINALIZER]);
    expect(await networkWrites(cp, mark)).toEqual([]);
    expect(await namespaceRequests(cp, mark)).toEqual([]);
    expect(await operatorMay(admin(), 'watch', { group: '', resource: 'namespaces' })).toBe(false);

    // Deleted now, the network waits for upstream's controller: its finalizer and its NAD in the other namespace stay.
    await admin().delete(resourceTypes.sriovNetwork, UNRECONCILED);
    await quiet();
    const deleting = await network(admin(), UNRECONCILED);
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(deleting.metadata.finalizers).toEqual([NAD_CLEANUP_FINALIZER]);
    expect(await nad(admin(), nadPlace(deleting))).toBeDefined();
    expect(await networkWrites(cp, mark)).toEqual([]);
  }, 90_000);
});
