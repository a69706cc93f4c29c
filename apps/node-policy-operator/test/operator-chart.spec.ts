// The operator as the chart deploys it, on a real API server: the ServiceAccount, RBAC and Deployment
// Helm renders are accepted, and `run` started with exactly the container's arguments and environment
// (field references resolved as the kubelet does), authorized by the chart's RBAC alone, takes the
// Lease, provisions a SriovNetwork's NAD and generates a node policy's DeviceAttributes and
// SriovResourcePolicy with DRAConfigurationReady. A kubeconfig with the ServiceAccount's token stands in
// for the in-cluster token mount; the release and the SR-IOV operator's namespace differ, as they do.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  OPERATOR_CHART_DIR,
  containerEnvironment,
  createNamespace,
  createRendered,
  freePort,
  installCrds,
  podSpecOf,
  renderChartTemplate,
  serviceAccountKubeconfig,
  startControlPlane,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { draReference, nodePolicyBody, seedNode, sriovNetworkBody } from './cluster-objects.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const RELEASE_NS = 'sriov-dra';
const OPERATOR_NS = 'sriov-network-operator';
const POD = 'node-policy-operator-7d9c5-x2x4k';
interface WithConditions extends KubeObject {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason: string }[] };
}

describe('the operator as the chart deploys it', () => {
  let cp: ControlPlane;
  let dir: string;
  let healthPort: number;
  let objects: Record<string, unknown>[];
  let operator: ChildProcess | undefined;
  const admin = () => cp.adminClient;

  beforeAll(async () => {
    cp = await startControlPlane();
    await installCrds(admin());
    for (const namespace of [RELEASE_NS, OPERATOR_NS, 'ai-workloads']) await createNamespace(admin(), namespace);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'operator-chart-'));
    healthPort = await freePort();
    const values = { global: { operatorNamespace: OPERATOR_NS }, healthPort };
    objects = ['serviceaccount.yaml', 'rbac.yaml', 'deployment.yaml'].flatMap((template) =>
      renderChartTemplate(OPERATOR_CHART_DIR, template, { namespace: RELEASE_NS, values }),
    );
  }, 120_000);

  afterAll(async () => {
    if (operator !== undefined) await terminateChild(operator);
    await cp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('renders objects the API server accepts', async () => {
    expect(objects.map((object) => object['kind'])).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Deployment']);
    await createRendered(admin(), objects, RELEASE_NS);
  });

  it('runs on the chart’s permissions alone: Lease, a SriovNetwork’s NAD, a node policy’s generated objects, and their removal', async () => {
    const pod = podSpecOf(objects.find((object) => object['kind'] === 'Deployment'));
    const [container] = pod.containers;
    if (container === undefined) throw new Error('the chart rendered no operator container');
    const env = containerEnvironment(pod, container, { 'metadata.name': POD, 'metadata.namespace': RELEASE_NS });
    env['KUBECONFIG'] = await serviceAccountKubeconfig(cp, { namespace: RELEASE_NS, name: pod.serviceAccountName }, path.join(dir, 'operator.kubeconfig'));

    const logFile = path.join(dir, 'operator.log');
    const log = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...(container.args ?? [])], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    operator = child;
    const describeLog = () => fs.readFileSync(logFile, 'utf8');
    await waitFor(
      '/readyz on the chart’s port',
      async () => (await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`).catch(() => undefined))?.status === 200,
      {
        timeoutMs: 60_000,
        alive: () => child.exitCode === null,
        describe: describeLog,
      },
    );
    // Ready is not leading (a standby replica is ready too): the Lease is taken a moment later.
    const holder = () =>
      admin()
        .get<KubeObject & { spec: { holderIdentity?: string } }>(resourceTypes.lease, { namespace: OPERATOR_NS, name: 'sriov-dra-node-policy-operator' })
        .then(
          (lease) => lease.spec.holderIdentity,
          () => undefined,
        );
    await waitFor('the Lease taken by this replica', async () => (await holder()) === POD, { timeoutMs: 30_000, describe: describeLog });

    await seedNode(admin(), OPERATOR_NS, 'worker-1', { rail: 'true' }, [
      { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
    ]);
    await admin().create(
      resourceTypes.sriovNetwork,
      sriovNetworkBody(OPERATOR_NS, 'rail-a-net', { resourceName: 'sriov_vfs', networkNamespace: 'ai-workloads' }),
      { namespace: OPERATOR_NS },
    );
    await admin().create(
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
        resourceName: 'sriov_vfs',
        nodeSelector: { rail: 'true' },
        numVfs: 4,
        nicSelector: { pfNames: ['ens1f0'] },
        dra: draReference(OPERATOR_NS, 'rail-a-net'),
      }),
      { namespace: OPERATOR_NS },
    );
    const reason = async (): Promise<string | undefined> =>
      (await admin().get<WithConditions>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' })).status?.conditions?.find(
        (condition) => condition.type === 'DRAConfigurationReady',
      )?.reason;
    await waitFor('the policy’s DRA configuration applied', async () => (await reason()) === 'DRAConfigurationApplied', {
      timeoutMs: 30_000,
      describe: describeLog,
    });
    const nad = await admin().get(resourceTypes.networkAttachmentDefinition, { namespace: 'ai-workloads', name: 'rail-a-net' });
    expect(nad.metadata.name).toBe('rail-a-net');
    const generated = async (type: ResourceType) => (await admin().list(type, { namespace: OPERATOR_NS })).items.map((item) => item.metadata.name);
    expect(await generated(resourceTypes.sriovResourcePolicy)).toHaveLength(1);
    expect((await generated(resourceTypes.deviceAttributes)).length).toBeGreaterThan(0);

    // And the way back: the policy's generated objects and the network's NAD are deleted, the network's finalizer released.
    await admin().delete(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
    await waitFor('the policy’s DeviceAttributes deleted', async () => (await generated(resourceTypes.deviceAttributes)).length === 0, {
      timeoutMs: 30_000,
      describe: describeLog,
    });
    await admin().delete(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name: 'rail-a-net' });
    const gone = (type: ResourceType, namespace: string, name: string) =>
      admin()
        .get(type, { namespace, name })
        .then(
          () => false,
          () => true,
        );
    await waitFor(
      'the network and its NAD gone',
      async () =>
        (await gone(resourceTypes.sriovNetwork, OPERATOR_NS, 'rail-a-net')) &&
        (await gone(resourceTypes.networkAttachmentDefinition, 'ai-workloads', 'rail-a-net')),
      { timeoutMs: 30_000, describe: describeLog },
    );
    // Nothing was refused along the way.
    expect(describeLog()).not.toMatch(/Forbidden/);
  }, 120_000);
});
