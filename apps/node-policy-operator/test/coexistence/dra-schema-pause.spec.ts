// The SR-IOV network operator's upgrade re-applies its own SriovNetworkNodePolicy CRD, without spec.dra,
// while this operator runs (as the chart deploys it alongside upstream, its RBAC alone). From then on the
// API server serves every policy pruned of spec.dra. The operator pauses: a policy edited meanwhile wakes
// it, yet it writes and deletes nothing (generated objects' resourceVersions, and the API server's audit
// log of its requests), and it reports DraSchemaMissing once — log line, Warning Event on the CRD, metric.
// After `crds apply` it resumes by itself and the change made meanwhile lands.
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  containerEnvironment,
  freePort,
  podSpecOf,
  readCrds,
  serviceAccountToken,
  startControlPlane,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { parseRunFlags } from '../../src/cli/run-flags.ts';
import { applyUpstreamOwnedCrds, crdsApplySucceeded } from '../../src/crds/apply-crds.ts';
import { type Operator, startOperator } from '../../src/operator.ts';
import { draReference, nodePolicyBody, seedNode } from '../cluster-objects.ts';
import {
  OPERATOR_NS,
  OPERATOR_USER,
  RAIL_A_CONFIG,
  RELEASE_NS,
  applyRbac,
  auditMark,
  createRailNetwork,
  renderOperator,
  seedUpstreamCluster,
  writeAsUpstream,
} from './upstream-cluster.ts';

const POLICY_CRD = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
const UPSTREAM_CRDS = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-crds/', import.meta.url));
/** Long enough for a reconciliation woken by an edit to have written: they take well under a second here. */
const QUIET_MS = 3_000;

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly code?: string;
  readonly crd?: string;
}
type Condition = { type: string; status: string; reason: string };
type PolicyObject = KubeObject & { spec: { dra?: unknown }; status?: { conditions?: Condition[] } };

let cp: ControlPlane;
let operator: Operator | undefined;
const lines: LogLine[] = [];
const admin = (): KubeClient => cp.adminClient;

/** Starts the operator as the rendered Deployment configures it, logging into `lines`. */
async function startAsDeployed(deployment: Record<string, unknown>): Promise<Operator> {
  const pod = podSpecOf(deployment);
  const [container] = pod.containers;
  if (container === undefined) throw new Error('the chart rendered no operator container');
  const env = containerEnvironment(pod, container, { 'metadata.name': 'node-policy-operator-1', 'metadata.namespace': RELEASE_NS });
  const flags = parseRunFlags((container.args ?? []).slice(1), env);
  if (!flags.ok) throw new Error(flags.error.message);
  const token = await serviceAccountToken(admin(), { namespace: RELEASE_NS, name: pod.serviceAccountName });
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return startOperator(flags.value, cp.clientWithToken(token), logger);
}

/** Kind/name → resourceVersion of every DeviceAttributes and SriovResourcePolicy of the operator namespace. */
async function generated(): Promise<Record<string, string>> {
  const entries = async (type: ResourceType): Promise<[string, string][]> =>
    (await admin().list(type, { namespace: OPERATOR_NS })).items.map((item) => [`${type.kind}/${item.metadata.name}`, item.metadata.resourceVersion]);
  return Object.fromEntries([...(await entries(resourceTypes.deviceAttributes)), ...(await entries(resourceTypes.sriovResourcePolicy))]);
}

/** The operator's writes after the first `skip` audited requests, but for its Events and its Lease. */
async function operatorWrites(skip: number): Promise<string[]> {
  return ((await cp.auditLog?.requests()) ?? [])
    .slice(skip)
    .filter((event) => event.user.username === OPERATOR_USER && ['create', 'update', 'patch', 'delete'].includes(event.verb))
    .filter((event) => !['events', 'leases'].includes(event.objectRef?.resource ?? ''))
    .map((event) => `${event.verb} ${event.objectRef?.resource ?? ''}/${event.objectRef?.subresource ?? ''} ${event.objectRef?.name ?? ''}`);
}

async function metric(name: string): Promise<string | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${String(operator?.healthPort)}/metrics`)).text();
  return text.split('\n').find((line) => line.startsWith(`${name} `));
}

async function policy(name: string): Promise<PolicyObject> {
  return admin().get<PolicyObject>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name });
}

async function eventsOnTheCrd(reason: string): Promise<{ type: string; note: string }[]> {
  const events = (await admin().list(resourceTypes.event, { namespace: 'default' })).items as (KubeObject & {
    regarding?: { name?: string };
    reason?: string;
    type: string;
    note: string;
  })[];
  return events.filter((event) => event.regarding?.name === POLICY_CRD && event.reason === reason).map(({ type, note }) => ({ type, note }));
}

/** Waits until the generated objects stop changing: the operator has nothing left to write. */
async function settledGenerated(): Promise<Record<string, string>> {
  for (;;) {
    const before = await generated();
    await delay(QUIET_MS);
    const after = await generated();
    if (JSON.stringify(after) === JSON.stringify(before)) return after;
  }
}

beforeAll(async () => {
  cp = await startControlPlane({ audit: true });
  await seedUpstreamCluster(admin());
  await seedNode(admin(), OPERATOR_NS, 'worker-1', { rail: 'true' }, [
    { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
    { name: 'ens1f1', pciAddress: '0000:3b:00.1', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:01.2', vfID: 0 }] },
  ]);
  const rail = await createRailNetwork(admin());
  await writeAsUpstream(admin(), rail, RAIL_A_CONFIG);
  const common = { nodeSelector: { rail: 'true' }, numVfs: 1 };
  await admin().create(
    resourceTypes.sriovNetworkNodePolicy,
    nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
      ...common,
      resourceName: 'rail_a',
      nicSelector: { pfNames: ['ens1f0'] },
      dra: draReference(OPERATOR_NS, 'rail-a-net'),
    }),
    { namespace: OPERATOR_NS },
  );
  // A policy without spec.dra on the other PF: its pool's DeviceAttributes and its config on the node.
  await admin().create(
    resourceTypes.sriovNetworkNodePolicy,
    nodePolicyBody(OPERATOR_NS, 'storage-policy', { ...common, resourceName: 'storage_a', nicSelector: { pfNames: ['ens1f1'] } }),
    { namespace: OPERATOR_NS },
  );
  const { rbac, deployment } = renderOperator('alongside-upstream', await freePort());
  await applyRbac(admin(), rbac);
  operator = await startAsDeployed(deployment);
  await waitFor(
    'the rail policy’s DRA configuration applied',
    async () => (await policy('rail-a-policy')).status?.conditions?.some((condition) => condition.reason === 'DRAConfigurationApplied') === true,
    { timeoutMs: 30_000 },
  );
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cp.stop();
}, 60_000);

describe('the policy CRD replaced by upstream’s while the operator runs', () => {
  let before: Record<string, string>;

  it('pauses: a policy edit meanwhile changes no generated object and no policy status, and DraSchemaMissing is reported once', async () => {
    before = await settledGenerated();
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['DeviceAttributes/storage-a-attrs', 'SriovResourcePolicy/worker-1']));
    const railAttributes = `DeviceAttributes/dra-policy-${(await policy('rail-a-policy')).metadata.uid}-attrs`;
    expect(before[railAttributes]).toBeDefined();
    const mark = await auditMark(cp);

    // As upstream's upgrade applies it: its own copy, without spec.dra.
    const live = await admin().get(resourceTypes.customResourceDefinition, { name: POLICY_CRD });
    const upstream = readCrds(UPSTREAM_CRDS).find((crd) => (crd['metadata'] as { name: string }).name === POLICY_CRD) as Record<string, unknown>;
    await admin().request({
      method: 'PUT',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${POLICY_CRD}`,
      body: { ...upstream, metadata: { ...(upstream['metadata'] as object), resourceVersion: live.metadata.resourceVersion } },
    });
    // Stored policies are served pruned at once; the informers relist them so about a second later.
    await waitFor('the rail policy served without spec.dra', async () => (await policy('rail-a-policy')).spec.dra === undefined, { timeoutMs: 10_000 });
    await delay(QUIET_MS);
    await admin().patch(
      resourceTypes.sriovNetworkNodePolicy,
      { namespace: OPERATOR_NS, name: 'storage-policy' },
      { spec: { resourceName: 'storage_b' } },
      'application/merge-patch+json',
    );
    await delay(QUIET_MS);

    expect(await generated()).toEqual(before);
    expect(await operatorWrites(mark)).toEqual([]);
    const reported = lines.filter((line) => line.code === 'DraSchemaMissing');
    expect(reported.map(({ level, crd }) => ({ level, crd }))).toEqual([{ level: 50, crd: POLICY_CRD }]);
    expect(reported[0]?.msg).toMatch(
      /^DraSchemaMissing: CustomResourceDefinition sriovnetworknodepolicies\.sriovnetwork\.openshift\.io: version v1 declares no spec\.dra — run `node-policy-operator crds apply`.* resumes by itself once spec\.dra is back$/,
    );
    expect(await metric('sriov_dra_operator_dra_schema_missing')).toBe('sriov_dra_operator_dra_schema_missing 1');
    await waitFor('the Warning Event on the CRD', async () => (await eventsOnTheCrd('DraSchemaMissing')).length > 0, { timeoutMs: 10_000 });
    expect(await eventsOnTheCrd('DraSchemaMissing')).toEqual([{ type: 'Warning', note: reported[0]?.msg }]);
  }, 60_000);

  it('resumes after crds apply: the edit made meanwhile lands, the rail policy’s objects stay as they were', async () => {
    const railAttributes = `DeviceAttributes/dra-policy-${(await policy('rail-a-policy')).metadata.uid}-attrs`;
    const report = await applyUpstreamOwnedCrds(admin(), { dryRun: false, namespace: OPERATOR_NS });
    expect(crdsApplySucceeded(report)).toBe(true);

    await waitFor('the edited policy’s new pool', async () => (await generated())['DeviceAttributes/storage-b-attrs'] !== undefined, { timeoutMs: 30_000 });
    const after = await settledGenerated();
    expect(Object.keys(after).sort()).toEqual(
      Object.keys(before)
        .map((name) => (name === 'DeviceAttributes/storage-a-attrs' ? 'DeviceAttributes/storage-b-attrs' : name))
        .sort(),
    );
    // The node's config now selects the new pool; the rail policy's own attributes were never rewritten.
    expect(after['SriovResourcePolicy/worker-1']).not.toBe(before['SriovResourcePolicy/worker-1']);
    expect(after[railAttributes]).toBe(before[railAttributes]);
    const node = await admin().get<KubeObject & { spec: unknown }>(resourceTypes.sriovResourcePolicy, { namespace: OPERATOR_NS, name: 'worker-1' });
    expect(JSON.stringify(node.spec)).toContain('storage-b');
    expect((await policy('rail-a-policy')).status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady')?.reason).toBe(
      'DRAConfigurationApplied',
    );

    expect(await metric('sriov_dra_operator_dra_schema_missing')).toBe('sriov_dra_operator_dra_schema_missing 0');
    expect(lines.filter((line) => line.code === 'DraSchemaMissing')).toHaveLength(1);
    expect(lines.filter((line) => line.msg.startsWith('the CRD declares spec.dra again')).map(({ level, crd }) => ({ level, crd }))).toEqual([
      { level: 30, crd: POLICY_CRD },
    ]);
    await waitFor('the Normal Event on the CRD', async () => (await eventsOnTheCrd('DraSchemaServed')).length > 0, { timeoutMs: 10_000 });
  }, 60_000);
});
