// The chart installed where dra-driver-sriov's Helm release already installed the DeviceAttributes and
// SriovResourcePolicy CRDs (docs/install-and-upgrade.md). Upstream's chart ships them in templates/, so they
// belong to its release; here a release of a chart holding exactly those two templates
// (charts/sriov-dra/test-data/upstream-crds, verbatim) stands for it, with upstream's demo objects stored
// under them. On a real API server with the helm this repository builds (v4):
// - under upstream's schema, the operator's generated objects and the examples' are stored as written;
// - `helm install` of this chart applies its crds/ over upstream's CRDs: the schema becomes the chart's and
//   upstream's release no longer owns them, every stored object stays; `helm uninstall` of upstream's
//   release then leaves both CRDs and their objects;
// - installing or upgrading upstream's release takes them back, and its uninstall then deletes both CRDs and
//   every object in them; `helm upgrade` of this chart does not bring them back, creating crds/ does, and
//   the operator writes its objects again.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { type KubeClient, type KubeObject, type ResourceType, isApiError, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import {
  CHART_CRDS_DIR,
  type ControlPlane,
  UMBRELLA_CHART_DIR,
  createNamespace,
  helmBinary,
  readCrds,
  startControlPlane,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { applyUpstreamOwnedCrds, crdsApplySucceeded } from '../../src/crds/apply-crds.ts';
import { type Operator, startOperator } from '../../src/operator.ts';
import { draReference, nodePolicyBody, seedNode } from '../cluster-objects.ts';
import { OPERATOR_NS, createRailNetwork } from './upstream-cluster.ts';

/** Upstream's release, in the namespace its demo objects live in. */
const UPSTREAM_RELEASE = 'dra-driver-sriov';
const DRIVER_GROUP = 'sriovnetwork.k8snetworkplumbingwg.io';
const DRIVER_CRDS = [`deviceattributes.${DRIVER_GROUP}`, `sriovresourcepolicies.${DRIVER_GROUP}`];
const TEST_DATA = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/', import.meta.url));
const UPSTREAM_CRDS = join(TEST_DATA, 'upstream-crds');
const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const DRIVER_KINDS: Readonly<Record<string, ResourceType>> = {
  DeviceAttributes: resourceTypes.deviceAttributes,
  SriovResourcePolicy: resourceTypes.sriovResourcePolicy,
};
/** One attribute of each value type, so that every kind of value the operator writes is checked. */
const EXTRA_ATTRIBUTES = {
  'example.com/rail': { string: 'a' },
  'example.com/railIndex': { int: 7 },
  'example.com/gpuDirect': { bool: true },
  'example.com/firmware': { version: '22.41.1000' },
};

type SpecObject = KubeObject & { kind: string; spec: Record<string, unknown> };
type PolicyObject = KubeObject & { status?: { conditions?: { type: string; reason: string }[] } };
type CrdObject = KubeObject & { spec: { versions: { name: string; schema: unknown }[] } };

let cp: ControlPlane;
let operator: Operator | undefined;
const admin = (): KubeClient => cp.adminClient;
/** Every driver object stored so far, as the API server returned it. */
const kept: SpecObject[] = [];
/** Upstream's demo objects among them. */
let upstreamSamples: SpecObject[] = [];

/**
 * client-go's informational log lines inside helm (klog level I, e.g. that the watch of its CRD wait ended
 * when the wait did) come and go with timing; they are not Helm's output, its warnings and errors are.
 */
const CLIENT_GO_INFO = /^I\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [\w.-]+:\d+\] .*\n?/gm;

function helm(...args: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(helmBinary(), [...args, '--kubeconfig', cp.kubeconfig], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: cp.dir } });
  return { status: run.status, stderr: run.stderr.replace(CLIENT_GO_INFO, '') };
}

/** This chart's release as docs/install-and-upgrade.md installs it (no webhook: nothing serves it here). */
const chartRelease = (verb: 'install' | 'upgrade') =>
  helm(
    verb,
    'sriov-dra',
    UMBRELLA_CHART_DIR,
    '--namespace',
    'sriov-dra',
    ...(verb === 'install' ? ['--create-namespace'] : []),
    '--set',
    `global.operatorNamespace=${OPERATOR_NS}`,
    '--set',
    'node-policy-operator.webhook.enabled=false',
  );

/** Upstream's two CRD templates as a chart of their own. */
function upstreamChart(): string {
  const chart = join(cp.dir, 'dra-driver-sriov-chart');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: dra-driver-sriov-chart\nversion: 0.0.0-dev\n');
  for (const file of readdirSync(UPSTREAM_CRDS).filter((name) => name.startsWith(`${DRIVER_GROUP}_`))) {
    copyFileSync(join(UPSTREAM_CRDS, file), join(chart, 'templates', file));
  }
  return chart;
}

/** The DeviceAttributes and SriovResourcePolicies of YAML files under `dir`, first occurrence of each name. */
function driverObjects(dir: string): SpecObject[] {
  const seen = new Set<string>();
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((document) => document.toJS() as SpecObject | null))
    .filter((object): object is SpecObject => object !== null && object.kind in DRIVER_KINDS)
    .filter((object) => {
      const key = `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** Creates each object with strict field validation and returns it as stored. */
async function store(objects: readonly SpecObject[]): Promise<SpecObject[]> {
  const created: SpecObject[] = [];
  for (const object of objects) {
    created.push(await admin().create<SpecObject>(DRIVER_KINDS[object.kind] as ResourceType, object, { namespace: object.metadata.namespace ?? 'default' }));
  }
  return created;
}

/** The object as stored now, or NotFound. */
const current = (object: SpecObject): Promise<SpecObject | 'NotFound'> =>
  admin()
    .get<SpecObject>(DRIVER_KINDS[object.kind] as ResourceType, { namespace: object.metadata.namespace, name: object.metadata.name })
    .catch((error: unknown) => {
      if (isApiError(error, 'NotFound')) return 'NotFound' as const;
      throw error;
    });

async function draReason(): Promise<string | undefined> {
  const policy = await admin().get<PolicyObject>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
  return policy.status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady')?.reason;
}

/** The DeviceAttributes and SriovResourcePolicy the operator generates for the rail policy on worker-1. */
async function generated(): Promise<SpecObject[]> {
  const policy = await admin().get(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
  const wanted = [
    { kind: 'DeviceAttributes', name: `dra-policy-${policy.metadata.uid}-attrs` },
    { kind: 'SriovResourcePolicy', name: 'worker-1' },
  ];
  const found = await Promise.all(wanted.map(({ kind, name }) => current({ kind, metadata: { namespace: OPERATOR_NS, name } } as SpecObject)));
  return found.filter((object): object is SpecObject => object !== 'NotFound');
}

async function crd(name: string): Promise<CrdObject> {
  return admin().get<CrdObject>(resourceTypes.customResourceDefinition, { name });
}

const schemas = (crds: readonly CrdObject[]): unknown[] => crds.map((each) => each.spec.versions.map((version) => version.schema));
const releaseOf = async (name: string): Promise<string | undefined> => (await crd(name)).metadata.annotations?.['meta.helm.sh/release-name'];
const driverCrdNames = async (): Promise<string[]> =>
  (await admin().list(resourceTypes.customResourceDefinition)).items
    .map((each) => each.metadata.name)
    .filter((name) => name.endsWith(`.${DRIVER_GROUP}`))
    .sort();
const fileCrds = (dir: string): CrdObject[] =>
  readCrds(dir)
    .map((each) => each as unknown as CrdObject)
    .filter((each) => DRIVER_CRDS.includes(each.metadata.name))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));

beforeAll(async () => {
  cp = await startControlPlane();
  const installed = helm('install', UPSTREAM_RELEASE, upstreamChart(), '--namespace', UPSTREAM_RELEASE, '--create-namespace');
  if (installed.status !== 0) throw new Error(`helm install of upstream's release: ${installed.stderr}`);
  upstreamSamples = await store(driverObjects(join(TEST_DATA, 'upstream-samples', 'dra-driver-sriov')));
  kept.push(...upstreamSamples);
  // The SR-IOV network operator's CRDs as `crds apply` creates them, for the operator below.
  await createNamespace(admin(), OPERATOR_NS);
  await createNamespace(admin(), 'ai-workloads');
  if (!crdsApplySucceeded(await applyUpstreamOwnedCrds(admin(), { dryRun: false, namespace: OPERATOR_NS }))) throw new Error('crds apply failed');
}, 180_000);

afterAll(async () => {
  await operator?.stop();
  await cp.stop();
}, 60_000);

describe('the chart on a cluster where dra-driver-sriov’s release installed the driver CRDs', () => {
  it('under upstream’s schema, stores the operator’s generated objects and the examples’ as written (strict field validation)', async () => {
    expect(schemas(await Promise.all(DRIVER_CRDS.map(crd)))).toEqual(schemas(fileCrds(UPSTREAM_CRDS)));
    await seedNode(admin(), OPERATOR_NS, 'worker-1', { rail: 'true' }, [
      { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
    ]);
    await createRailNetwork(admin());
    await admin().create(
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
        resourceName: 'rail_a',
        nodeSelector: { rail: 'true' },
        numVfs: 4,
        nicSelector: { pfNames: ['ens1f0'] },
        dra: draReference(OPERATOR_NS, 'rail-a-net', EXTRA_ATTRIBUTES),
      }),
      { namespace: OPERATOR_NS },
    );
    operator = await startOperator(
      {
        operatorNamespace: OPERATOR_NS,
        resourcePrefix: 'openshift.io',
        draEnabled: true,
        mode: 'standalone',
        healthPort: 0,
        leaderElection: {
          namespace: OPERATOR_NS,
          name: 'node-policy-operator',
          identity: 'operator-1',
          leaseDurationMs: 3_000,
          renewDeadlineMs: 2_000,
          retryPeriodMs: 250,
        },
      },
      admin(),
      pino({ level: 'silent' }),
    );
    await waitFor('the rail policy’s DRA configuration applied', async () => (await draReason()) === 'DRAConfigurationApplied', { timeoutMs: 30_000 });
    const [attributes, resourcePolicy] = await generated();
    expect(attributes?.spec).toEqual({
      attributes: {
        ...EXTRA_ATTRIBUTES,
        'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/rail_a' },
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' },
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'ai-workloads' },
      },
    });
    const policy = await admin().get(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
    expect(resourcePolicy?.spec).toEqual({
      nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['worker-1'] }] }] },
      configs: [
        {
          deviceAttributesSelector: {
            matchLabels: {
              'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator',
              'sriovnetwork.openshift.io/node-policy-uid': policy.metadata.uid,
            },
          },
          resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }],
        },
      ],
    });
    kept.push(...(await generated()));

    const examples = driverObjects(EXAMPLES);
    expect(examples.length).toBeGreaterThan(2);
    for (const example of await store(examples)) {
      expect([example.metadata.name, example.spec]).toEqual([
        example.metadata.name,
        examples.find((each) => each.metadata.name === example.metadata.name)?.spec,
      ]);
      kept.push(example);
    }
  }, 90_000);

  it('helm install of the chart applies its crds/ over upstream’s: the chart’s schema, no longer upstream’s release’s, every object kept', async () => {
    const installed = chartRelease('install');
    expect({ status: installed.status, stderr: installed.stderr }).toEqual({ status: 0, stderr: '' });
    expect(schemas(await Promise.all(DRIVER_CRDS.map(crd)))).toEqual(schemas(fileCrds(CHART_CRDS_DIR)));
    for (const name of DRIVER_CRDS) expect([name, await releaseOf(name)]).toEqual([name, undefined]);
    for (const object of kept) expect([object.metadata.name, await current(object)]).toEqual([object.metadata.name, object]);
    // Upstream's demo objects written again under the chart's schema: accepted as they are (a dry run).
    for (const sample of upstreamSamples) {
      const { metadata, ...rest } = sample;
      const body = { ...rest, metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels } };
      const applied = await admin().request({
        method: 'PATCH',
        path: resourcePath(DRIVER_KINDS[sample.kind] as ResourceType, { namespace: metadata.namespace, name: metadata.name }),
        query: { dryRun: 'All', fieldManager: 'kubectl', fieldValidation: 'Strict', force: true },
        contentType: 'application/apply-patch+yaml',
        body,
      });
      expect([metadata.name, (applied as SpecObject).spec]).toEqual([metadata.name, sample.spec]);
    }
  }, 120_000);

  it('helm uninstall of upstream’s release then leaves both CRDs and every object in them', async () => {
    const uninstalled = helm('uninstall', UPSTREAM_RELEASE, '--namespace', UPSTREAM_RELEASE, '--wait');
    expect(uninstalled.status).toBe(0);
    for (const name of DRIVER_CRDS) {
      expect(uninstalled.stderr).toContain(`skipping delete of resource not owned by this release" kind=CustomResourceDefinition name=${name}`);
    }
    expect(await driverCrdNames()).toEqual(DRIVER_CRDS);
    for (const object of kept) expect([object.metadata.name, await current(object)]).toEqual([object.metadata.name, object]);
  }, 60_000);

  it('installing upstream’s release again is refused; with --take-ownership it takes both CRDs back, upstream’s schema again, every object kept', async () => {
    const refused = helm('install', UPSTREAM_RELEASE, upstreamChart(), '--namespace', UPSTREAM_RELEASE);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `CustomResourceDefinition "${DRIVER_CRDS[0] ?? ''}" in namespace "" exists and cannot be imported into the current release`,
    );
    const taken = helm('install', UPSTREAM_RELEASE, upstreamChart(), '--namespace', UPSTREAM_RELEASE, '--take-ownership');
    expect({ status: taken.status, stderr: taken.stderr }).toEqual({ status: 0, stderr: '' });
    expect(schemas(await Promise.all(DRIVER_CRDS.map(crd)))).toEqual(schemas(fileCrds(UPSTREAM_CRDS)));
    for (const name of DRIVER_CRDS) expect([name, await releaseOf(name)]).toEqual([name, UPSTREAM_RELEASE]);
    for (const object of kept) expect([object.metadata.name, (await current(object)) === 'NotFound']).toEqual([object.metadata.name, false]);
  }, 60_000);

  it('then its uninstall deletes both CRDs and every object; helm upgrade of the chart does not bring them back, its crds/ does, and the operator its objects', async () => {
    const uninstalled = helm('uninstall', UPSTREAM_RELEASE, '--namespace', UPSTREAM_RELEASE, '--wait');
    expect({ status: uninstalled.status, stderr: uninstalled.stderr }).toEqual({ status: 0, stderr: '' });
    await waitFor('both driver CRDs deleted', async () => (await driverCrdNames()).length === 0, { timeoutMs: 30_000 });

    // helm upgrade never applies crds/.
    const upgraded = chartRelease('upgrade');
    expect({ status: upgraded.status, stderr: upgraded.stderr }).toEqual({ status: 0, stderr: '' });
    expect(await driverCrdNames()).toEqual([]);

    // The remedy: create the chart's crds/ (kubectl create -f charts/sriov-dra/crds/); the operator writes what it generates again.
    for (const each of fileCrds(CHART_CRDS_DIR)) {
      await admin().request({ method: 'POST', path: resourcePath(resourceTypes.customResourceDefinition), query: { fieldValidation: 'Strict' }, body: each });
    }
    expect(await driverCrdNames()).toEqual(DRIVER_CRDS);
    await waitFor('the generated objects written again', async () => (await generated()).length === 2, { timeoutMs: 60_000 });
    const generatedNames = new Set((await generated()).map((object) => object.metadata.name));
    for (const object of kept.filter((each) => !generatedNames.has(each.metadata.name))) {
      expect([object.metadata.name, await current(object)]).toEqual([object.metadata.name, 'NotFound']);
    }
  }, 120_000);
});
