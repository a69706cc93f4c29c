// What a user sees of the custom resources through kubectl, on a real API server, with the CRDs installed both
// ways: `crds apply` onto a cluster that runs the upstream operators (their CRDs installed first), and `crds
// apply` on a cluster without them (it creates this project's copies). `kubectl explain` shows the descriptions
// of the fields this project defines either way; `kubectl get` shows the readiness columns of the copies this
// project creates, and upstream's own columns where upstream's CRDs were installed.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeClient, type KubeObject, type ResourceType, delay, isApiError, resourceTypes } from '@sriov-dra/k8s';
import {
  CHART_CRDS_DIR,
  type ControlPlane,
  controlPlaneBinaries,
  createNamespace,
  installCrdObjects,
  readCrds,
  startControlPlane,
} from '@sriov-dra/k8s/testing';
import { applyUpstreamOwnedCrds } from '../../src/crds/apply-crds.ts';
import { applyCondition } from '../../src/status/apply-condition.ts';

const UPSTREAM_CRDS = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-crds/', import.meta.url));
const NAMESPACE = 'rails';
const POLICY_CRD = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
const NETWORK_CRD = 'sriovnetworks.sriovnetwork.openshift.io';

let cp: ControlPlane;
let client: KubeClient;

const kubectl = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)(controlPlaneBinaries().kubectl, ['--kubeconfig', cp.kubeconfig, ...args], { encoding: 'utf8' })).stdout;

/**
 * `kubectl explain <field>` with its whitespace collapsed (explain wraps descriptions), asked again while the
 * API server has not yet published the OpenAPI of a CRD changed a moment ago; the last answer is returned.
 */
async function explain(field: string, expected: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = (await kubectl('explain', field).catch((error: unknown) => String(error))).replace(/\s+/g, ' ');
    if (text.includes(expected) || Date.now() >= deadline) return text;
    await delay(500);
  }
}

/** `kubectl get <resource>` as rows of column name to value; kubectl aligns each column under its header. */
async function table(resource: string): Promise<Record<string, string>[]> {
  const [header = '', ...rows] = (await kubectl('get', resource, '-n', NAMESPACE)).split('\n').filter((line) => line !== '');
  const names = header.split(/\s{2,}/);
  let from = 0;
  const starts = names.map((name) => (from = header.indexOf(name, from)));
  return rows.map((row) => Object.fromEntries(names.map((name, index) => [name, row.slice(starts[index], starts[index + 1] ?? row.length).trim()])));
}

async function create<T extends KubeObject>(type: ResourceType, body: Record<string, unknown>): Promise<T> {
  return client.create<T>(type, body, { namespace: NAMESPACE });
}

const policy = (name: string) => ({
  apiVersion: 'sriovnetwork.openshift.io/v1',
  kind: 'SriovNetworkNodePolicy',
  metadata: { name, namespace: NAMESPACE },
  spec: {
    resourceName: 'rail_a',
    nodeSelector: { 'networking.example.com/dual-rail': 'true' },
    numVfs: 8,
    nicSelector: { vendor: '15b3', pfNames: ['ens1f0'] },
    dra: { attributes: { 'networking.example.com/rail': { string: 'a' } } },
  },
});

const network = (name: string) => ({
  apiVersion: 'sriovnetwork.openshift.io/v1',
  kind: 'SriovNetwork',
  metadata: { name, namespace: NAMESPACE },
  spec: { resourceName: 'rail_a', ipam: '{"type":"whereabouts","range":"192.0.2.0/24"}' },
});

/** A policy and a network, each with the condition the operator writes on it. */
async function createWithConditions(suffix: string): Promise<void> {
  const createdPolicy = await create(resourceTypes.sriovNetworkNodePolicy, policy(`rail-a-${suffix}`));
  await applyCondition(client, resourceTypes.sriovNetworkNodePolicy, createdPolicy, {
    type: 'DRAConfigurationReady',
    status: 'False',
    reason: 'SriovNetworkNotReady',
    message: `SriovNetwork ${NAMESPACE}/rail-a-${suffix} is not Ready`,
    observedGeneration: 1,
  });
  const createdNetwork = await create(resourceTypes.sriovNetwork, network(`rail-a-${suffix}`));
  await applyCondition(client, resourceTypes.sriovNetwork, createdNetwork, {
    type: 'Ready',
    status: 'False',
    reason: 'NetworkAttachmentDefinitionNotFound',
    message: 'not yet',
    observedGeneration: 1,
  });
}

/** The explain checks, the same whichever way the CRDs were installed. */
async function expectDescriptions(): Promise<void> {
  const cases = [
    ['sriovnetworknodepolicy.spec.dra', "Custom DRA attributes of this policy's VFs. Present (even empty), the node-policy operator generates"],
    ['sriovnetworknodepolicy.spec.dra.attributes', 'At most 31 entries: the operator adds k8s.cni.cncf.io/resourceName'],
    ['sriovnetworknodepolicy.spec.dra.attributes.int', 'An integer value within -9007199254740991 and 9007199254740991'],
    ['sriovnetworknodepolicy.status.conditions', 'The node-policy operator writes DRAConfigurationReady: True with reason DRAConfigurationApplied'],
    ['deviceattributes.spec.attributes', 'Attribute name to value, at most 32 entries.'],
    ['sriovresourcepolicy.spec.configs', 'a device belongs to the first config whose resourceFilters match it'],
  ] as const;
  for (const [field, text] of cases) {
    const output = await explain(field, text);
    expect({ field, shows: output.includes(text) ? 'the description' : output }).toEqual({ field, shows: 'the description' });
  }
}

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  // The upstream operators' CRDs, and the driver's from the chart.
  await installCrdObjects(client, [
    ...readCrds(UPSTREAM_CRDS).filter((crd) => (crd['spec'] as { group: string }).group !== 'sriovnetwork.k8snetworkplumbingwg.io'),
    ...readCrds(CHART_CRDS_DIR),
  ]);
  await createNamespace(client, NAMESPACE);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('on a cluster with the upstream operators, after crds apply', () => {
  it('kubectl explain shows the description of each field this project defines', async () => {
    const report = await applyUpstreamOwnedCrds(client, { dryRun: false, namespace: NAMESPACE });
    expect(report.results.find((result) => result.name === POLICY_CRD)?.action).toBe('upgraded');
    await expectDescriptions();
  }, 180_000);

  it('kubectl get shows upstream columns unchanged: crds apply adds no column to an installed CRD', async () => {
    await createWithConditions('upstream');
    expect(await table('sriovnetworknodepolicies')).toEqual([{ NAME: 'rail-a-upstream', AGE: expect.stringMatching(/^\d+s$/) }]);
    expect(await table('sriovnetworks')).toEqual([{ NAME: 'rail-a-upstream', READY: 'False', AGE: expect.stringMatching(/^\d+s$/) }]);
  }, 60_000);
});

describe('on a cluster without them, after crds apply', () => {
  beforeAll(async () => {
    // Nothing of upstream's left: the two CRDs go, with their objects.
    for (const name of [POLICY_CRD, NETWORK_CRD]) await client.delete(resourceTypes.customResourceDefinition, { name });
    for (const name of [POLICY_CRD, NETWORK_CRD]) {
      for (;;) {
        try {
          await client.get(resourceTypes.customResourceDefinition, { name });
        } catch (error) {
          if (isApiError(error, 'NotFound')) break;
          throw error;
        }
        await delay(200);
      }
    }
    const report = await applyUpstreamOwnedCrds(client, { dryRun: false, namespace: NAMESPACE });
    expect(report.results.filter((result) => result.action === 'created').map((result) => result.name)).toEqual([POLICY_CRD, NETWORK_CRD]);
  }, 120_000);

  it('kubectl explain shows the description of each field this project defines', async () => {
    await expectDescriptions();
  }, 180_000);

  it("kubectl get shows the operator's conditions as Ready and Reason columns", async () => {
    await createWithConditions('fresh');
    expect(await table('sriovnetworknodepolicies')).toEqual([
      { NAME: 'rail-a-fresh', 'DRA READY': 'False', 'DRA REASON': 'SriovNetworkNotReady', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
    expect(await table('sriovnetworks')).toEqual([
      { NAME: 'rail-a-fresh', READY: 'False', REASON: 'NetworkAttachmentDefinitionNotFound', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
  }, 60_000);

  it('kubectl get shows the template a DeviceAttributes object selects, and the age of a SriovResourcePolicy', async () => {
    await create(resourceTypes.deviceAttributes, {
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'DeviceAttributes',
      metadata: { name: 'rail-a', namespace: NAMESPACE },
      spec: {
        attributes: {
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' },
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'infra' },
        },
      },
    });
    await create(resourceTypes.deviceAttributes, {
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'DeviceAttributes',
      metadata: { name: 'tier-only', namespace: NAMESPACE },
      spec: { attributes: { 'networking.example.com/tier': { string: 'gold' } } },
    });
    await create(resourceTypes.sriovResourcePolicy, {
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'SriovResourcePolicy',
      metadata: { name: 'node-a', namespace: NAMESPACE },
      spec: { configs: [] },
    });
    expect(await table('deviceattributes')).toEqual([
      { NAME: 'rail-a', TEMPLATE: 'rail-a-net', 'TEMPLATE NAMESPACE': 'infra', AGE: expect.stringMatching(/^\d+s$/) },
      { NAME: 'tier-only', TEMPLATE: '', 'TEMPLATE NAMESPACE': '', AGE: expect.stringMatching(/^\d+s$/) },
    ]);
    expect(await table('sriovresourcepolicies')).toEqual([{ NAME: 'node-a', AGE: expect.stringMatching(/^\d+s$/) }]);
  }, 60_000);
});
