// `crds apply` on a cluster that already runs the upstream projects: their CRDs (test-data/upstream-crds,
// copied with their origin: every CRD of the SR-IOV network operator this project reads, its node-state CRD
// included) and their published sample objects and node states are installed first. Before the step the API
// server prunes spec.dra (the problem); after it spec.dra survives, the upstream objects are untouched, the
// CRDs without fields of ours are left as upstream installed them, and a second run changes nothing. The
// operator refuses to start on the upstream CRD, and starts after the step.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeClient, type KubeObject, type ResourceType, isApiError, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import { CHART_CRDS_DIR, type ControlPlane, createNamespace, installCrdObjects, readCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { parseAllDocuments } from 'yaml';
import { checkDraSchemasAtStart, findMissingDraSchemas } from '../../src/crds/dra-schema-check.ts';
import { ROUND_TRIP_DRA, checkDraRoundTrip } from '../../src/crds/dra-round-trip.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const TEST_DATA = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/', import.meta.url));
const POLICY_CRD = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
const NODE_STATE_CRD = 'sriovnetworknodestates.sriovnetwork.openshift.io';
const OPERATOR_NS = 'sriov-network-operator';

const KINDS: Readonly<Record<string, ResourceType>> = {
  SriovNetworkNodePolicy: resourceTypes.sriovNetworkNodePolicy,
  SriovNetwork: resourceTypes.sriovNetwork,
  NetworkAttachmentDefinition: resourceTypes.networkAttachmentDefinition,
  SriovNetworkNodeState: resourceTypes.sriovNetworkNodeState,
};

interface Sample {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

let cp: ControlPlane;
let client: KubeClient;
/** Each stored upstream sample as the API server returned it after creation. */
const stored: KubeObject[] = [];

function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // An operator that starts where it should have refused would run on: it is stopped, and the test fails.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return once(child, 'exit').then(([code]) => {
    clearTimeout(deadline);
    return { code: code as number | null, stdout, stderr };
  });
}

const crdsApply = (...flags: string[]) => run('crds', 'apply', '--kubeconfig', cp.kubeconfig, ...flags);

const policy = (name: string, dra?: unknown) => ({
  apiVersion: 'sriovnetwork.openshift.io/v1',
  kind: 'SriovNetworkNodePolicy',
  metadata: { name },
  spec: {
    resourceName: 'rail_a',
    nodeSelector: { 'networking.example.com/dual-rail': 'true' },
    numVfs: 8,
    nicSelector: { vendor: '15b3' },
    ...(dra === undefined ? {} : { dra }),
  },
});

/** A create as controllers and older clients send it: no strict field validation, so undeclared fields are pruned. */
const createLenient = (type: ResourceType, namespace: string, body: unknown) =>
  client.request({ method: 'POST', path: resourcePath(type, { namespace }), body }) as Promise<KubeObject & { spec: Record<string, unknown> }>;

const getCrd = (name = POLICY_CRD) => client.get<KubeObject & { spec: unknown }>(resourceTypes.customResourceDefinition, { name });
/** Upstream's node-state CRD as installed, before any crds apply. */
let nodeStateCrd: KubeObject;

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  // The upstream projects' CRDs where the cluster has them, and the driver's from the chart.
  await installCrdObjects(client, [
    ...readCrds(join(TEST_DATA, 'upstream-crds')).filter((crd) => (crd['spec'] as { group: string }).group !== 'sriovnetwork.k8snetworkplumbingwg.io'),
    ...readCrds(CHART_CRDS_DIR),
  ]);
  nodeStateCrd = await getCrd(NODE_STATE_CRD);
  const samples = ['upstream-samples', 'upstream-node-states']
    .flatMap((dir) =>
      readdirSync(join(TEST_DATA, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.yaml'))
        .sort()
        .map((file) => join(TEST_DATA, dir, file)),
    )
    .flatMap((file) => parseAllDocuments(readFileSync(file, 'utf8')).map((document) => document.toJS() as Sample | null))
    .filter((sample): sample is Sample => sample !== null && sample.kind in KINDS);
  for (const namespace of new Set(['default', OPERATOR_NS, ...samples.map((sample) => sample.metadata.namespace ?? 'default')])) {
    await createNamespace(client, namespace).catch((error: unknown) => {
      if (!isApiError(error, 'AlreadyExists')) throw error;
    });
  }
  for (const sample of samples) {
    try {
      stored.push(await createLenient(KINDS[sample.kind] as ResourceType, sample.metadata.namespace ?? 'default', sample));
    } catch (error) {
      // Several documents reuse one name; the first one stored is the one compared.
      if (!isApiError(error, 'AlreadyExists')) throw error;
    }
  }
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('crds apply on a cluster running the upstream operator', () => {
  it('stores upstream samples of every kind it extends or leaves alone', () => {
    expect(new Set(stored.map((object) => object.kind))).toEqual(new Set(Object.keys(KINDS)));
    expect(stored.length).toBeGreaterThan(20);
  });

  it('before: the API server prunes spec.dra and the operator refuses to start, naming the CRD and the remedy', async () => {
    const pruned = await createLenient(resourceTypes.sriovNetworkNodePolicy, OPERATOR_NS, policy('rail-a-before', ROUND_TRIP_DRA));
    expect(pruned.spec).not.toHaveProperty('dra');
    // The round trip crds apply ends with sees it too.
    const roundTrip = await checkDraRoundTrip(client, POLICY_CRD, OPERATOR_NS, 0);
    expect(roundTrip.outcome === 'failed' ? roundTrip.error.message : roundTrip.outcome).toMatch(
      /^DraRoundTripFailed: CustomResourceDefinition sriovnetworknodepolicies\.sriovnetwork\.openshift\.io: spec\.dra came back as nothing \(pruned\) instead of /,
    );
    expect((await findMissingDraSchemas(client)).map((error) => error.message)).toEqual([
      expect.stringMatching(
        /^DraSchemaMissing: CustomResourceDefinition sriovnetworknodepolicies\.sriovnetwork\.openshift\.io: version v1 declares no spec\.dra — run `node-policy-operator crds apply`/,
      ),
    ]);
    const operator = await run('run', '--operator-namespace', OPERATOR_NS, '--kubeconfig', cp.kubeconfig, '--health-port', '0', '--leader-elect', 'false');
    expect(operator.code).toBe(1);
    const logged = operator.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: number; code?: string; crd?: string; msg: string });
    expect(logged.filter((line) => line.level >= 50).map(({ code, crd }) => ({ code, crd }))).toEqual([{ code: 'DraSchemaMissing', crd: POLICY_CRD }]);
    expect(logged.some((line) => line.msg === 'operator started')).toBe(false);
    // In its Pod the same line becomes the container's termination message.
    const terminationLog = join(cp.dir, 'termination-log');
    writeFileSync(terminationLog, '');
    expect(await checkDraSchemasAtStart(client, pino({ level: 'silent' }), terminationLog)).toBe(false);
    expect(readFileSync(terminationLog, 'utf8')).toMatch(
      /^DraSchemaMissing: CustomResourceDefinition sriovnetworknodepolicies\.sriovnetwork\.openshift\.io: version v1 declares no spec\.dra — /,
    );
  }, 60_000);

  it('--dry-run prints the plan and changes nothing', async () => {
    const before = await getCrd();
    const planned = await crdsApply('--dry-run');
    expect({ code: planned.code, stderr: planned.stderr }).toEqual({ code: 0, stderr: '' });
    expect(planned.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'unchanged     network-attachment-definitions.k8s.cni.cncf.io',
      `would upgrade ${POLICY_CRD} (adds v1 spec.dra, v1 status.conditions)`,
      `unchanged     ${NODE_STATE_CRD}`,
      'unchanged     sriovnetworks.sriovnetwork.openshift.io',
    ]);
    expect((await getCrd()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  }, 60_000);

  it('after: spec.dra survives, everything upstream declared stays, the upstream objects are untouched', async () => {
    const before = await getCrd();
    const applied = await crdsApply('-n', OPERATOR_NS);
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(applied.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'unchanged     network-attachment-definitions.k8s.cni.cncf.io',
      `upgraded      ${POLICY_CRD} (adds v1 spec.dra, v1 status.conditions)`,
      `unchanged     ${NODE_STATE_CRD}`,
      'unchanged     sriovnetworks.sriovnetwork.openshift.io',
      `round trip    ${POLICY_CRD}: spec.dra kept as sent`,
    ]);

    // Upstream's schema with our two fields taken out again is upstream's schema as it was.
    const after = await getCrd();
    const withoutOurs = structuredClone(after.spec) as {
      versions: { schema: { openAPIV3Schema: { properties: Record<string, { properties?: Record<string, unknown> }> } } }[];
    };
    for (const version of withoutOurs.versions) {
      delete version.schema.openAPIV3Schema.properties['spec']?.properties?.['dra'];
      delete version.schema.openAPIV3Schema.properties['status']?.properties?.['conditions'];
      if (Object.keys(version.schema.openAPIV3Schema.properties['status']?.properties ?? {}).length === 0)
        delete version.schema.openAPIV3Schema.properties['status']?.properties;
    }
    expect(withoutOurs).toEqual(before.spec);
    // The node-state CRD carries no field of ours: upstream's stays as installed, not replaced by this project's copy.
    expect((await getCrd(NODE_STATE_CRD)).metadata.resourceVersion).toBe(nodeStateCrd.metadata.resourceVersion);

    const kept = await createLenient(resourceTypes.sriovNetworkNodePolicy, OPERATOR_NS, policy('rail-a-after', ROUND_TRIP_DRA));
    expect(kept.spec['dra']).toEqual(ROUND_TRIP_DRA);
    for (const object of stored) {
      const now = await client.get(KINDS[object.kind ?? ''] as ResourceType, { namespace: object.metadata.namespace, name: object.metadata.name });
      expect({ name: object.metadata.name, resourceVersion: now.metadata.resourceVersion, spec: now['spec'] }).toEqual({
        name: object.metadata.name,
        resourceVersion: object.metadata.resourceVersion,
        spec: object['spec'],
      });
    }
    expect(await findMissingDraSchemas(client)).toEqual([]);
  }, 90_000);

  it('a second run changes nothing and says so', async () => {
    const before = await getCrd();
    const again = await crdsApply('-n', OPERATOR_NS);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(again.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'unchanged     network-attachment-definitions.k8s.cni.cncf.io',
      `unchanged     ${POLICY_CRD}`,
      `unchanged     ${NODE_STATE_CRD}`,
      'unchanged     sriovnetworks.sriovnetwork.openshift.io',
      `round trip    ${POLICY_CRD}: spec.dra kept as sent`,
      'crds apply: nothing to change',
    ]);
    expect((await getCrd()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  }, 60_000);
});
