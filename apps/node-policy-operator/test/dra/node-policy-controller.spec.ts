// The running node-policy controller: its watches decide when it reconciles, and it reconciles from their
// caches. A SriovNetwork created after its policy, a status-only Ready change in both directions, and NAD
// churn that is not a referenced source (the driver's Pod shadows) — the last must not cost a
// reconciliation, nor must a node state's sync status; a reconciliation with nothing to change makes no
// request at all; and a generated object deleted by hand comes back without waiting for the resync. Requests are counted at the API server (audit log, the controller's own user).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { MANAGED_BY_VALUE, labels as keys } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type OperatorInformers, createOperatorInformers } from '../../src/controller/shared-informers.ts';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type NodePolicyController, startNodePolicyController } from '../../src/dra/node-policy-controller.ts';
import type { NodePolicyReconcileSummary } from '../../src/dra/node-policy-reconciler.ts';
import { draReference, nodePolicyBody, seedNode, sriovNetworkBody } from '../cluster-objects.ts';
import { reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';

const OPERATOR_NS = 'sriov-network-operator';
const NODE = 'worker-1';
/** The user the controller's requests are made as; the test's own go through the admin client. */
const CONTROLLER_USER = 'node-policy-controller';

type Condition = { type: string; status: string; reason: string };
type WithConditions = KubeObject & { status?: { conditions?: Condition[] } };

let cp: ControlPlane;
const stopWatching = new AbortController();
let watching: Promise<void> = Promise.resolve();
let client: KubeClient;
let controller: NodePolicyController;
let reconciliations = 0;
let lastSummary: NodePolicyReconcileSummary | undefined;
let nodeStateUpdates = 0;
let informers: OperatorInformers;
const common = { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io' };

beforeAll(async () => {
  cp = await startControlPlane({ audit: true });
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
  await seedNode(client, OPERATOR_NS, NODE, { rail: 'true' }, [
    { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
  ]);
  const logger = pino({ level: 'silent' });
  const controllerClient = cp.clientFor(CONTROLLER_USER, ['system:masters']);
  informers = createOperatorInformers(controllerClient, logger, { operatorNamespace: OPERATOR_NS, mode: 'alongside-upstream' });
  informers.nodeStates.subscribe({
    onUpdate: () => {
      nodeStateUpdates += 1;
    },
  });
  controller = startNodePolicyController({
    informers,
    ...common,
    client: controllerClient,
    logger: pino({ level: 'silent' }),
    draEnabled: true,
    onReconciled: (summary) => {
      reconciliations += 1;
      lastSummary = summary;
    },
  });
  watching = informers.start(stopWatching.signal);
  await controller.waitForSync();
}, 120_000);

afterAll(async () => {
  await controller.stop();
  stopWatching.abort();
  await watching;
  await cp.stop();
});

async function policyReason(): Promise<string | undefined> {
  const policy = await client.get<WithConditions>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
  return policy.status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady')?.reason;
}

const until = (reason: string) => waitFor(`DRAConfigurationReady ${reason}`, async () => (await policyReason()) === reason, { timeoutMs: 15_000 });

async function setNetworkReady(status: 'True' | 'False'): Promise<void> {
  const network = await client.get<KubeObject & { metadata: { generation: number } }>(resourceTypes.sriovNetwork, {
    namespace: OPERATOR_NS,
    name: 'rail-a-net',
  });
  await client.patch(
    resourceTypes.sriovNetwork,
    { namespace: OPERATOR_NS, name: 'rail-a-net', subresource: 'status' },
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status,
            reason: status === 'True' ? 'NetworkReady' : 'NetworkAttachmentDefinitionNotFound',
            message: 'set by the test',
            observedGeneration: network.metadata.generation,
            lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
        ],
      },
    },
    'application/merge-patch+json',
  );
}

describe('node-policy controller, running', () => {
  it('recovers when the referenced SriovNetwork appears, and follows status-only Ready changes both ways', async () => {
    await client.create(
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
    await until('SriovNetworkNotFound');

    await createNamespace(client, 'ai-workloads');
    await client.create(
      resourceTypes.sriovNetwork,
      sriovNetworkBody(OPERATOR_NS, 'rail-a-net', { resourceName: 'sriov_vfs', networkNamespace: 'ai-workloads' }),
      {
        namespace: OPERATOR_NS,
      },
    );
    // No SriovNetwork controller runs here: its one reconciliation writes the NAD and Ready=True, and the
    // node-policy controller has to notice on its own.
    await reconcileSriovNetwork({ namespace: OPERATOR_NS, name: 'rail-a-net' }, { ...common, client, logger: pino({ level: 'silent' }) });
    await until('DRAConfigurationApplied');

    await setNetworkReady('False');
    await until('SriovNetworkNotReady');
    await setNetworkReady('True');
    await until('DRAConfigurationApplied');
  }, 90_000);

  it('does not reconcile for NADs no policy depends on', async () => {
    await delay(500);
    const before = reconciliations;
    for (let index = 0; index < 20; index += 1) {
      await client.create(
        resourceTypes.networkAttachmentDefinition,
        {
          apiVersion: 'k8s.cni.cncf.io/v1',
          kind: 'NetworkAttachmentDefinition',
          metadata: { name: `shadow-${String(index)}`, namespace: 'ai-workloads' },
          spec: { config: '{"cniVersion":"1.0.0","name":"shadow","type":"sriov"}' },
        },
        { namespace: 'ai-workloads' },
      );
    }
    // Long against a loopback watch, which delivers in milliseconds: a woken reconciler would have run.
    await delay(1_500);
    expect(reconciliations).toBe(before);
  }, 30_000);

  it('caches source NADs, never the driver’s Pod shadows: the API server filters them out of its list and watch', async () => {
    const nad = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace: 'ai-workloads', labels },
      spec: { config: `{"cniVersion":"1.0.0","name":"${name}","type":"sriov"}` },
    });
    await client.create(resourceTypes.networkAttachmentDefinition, nad('dra-sriov-never-cached', { [keys.managedBy]: MANAGED_BY_VALUE }), {
      namespace: 'ai-workloads',
    });
    await client.create(resourceTypes.networkAttachmentDefinition, nad('rail-c-source', {}), { namespace: 'ai-workloads' });
    // One watch delivers in resourceVersion order: once the later NAD is cached, the shadow was filtered out.
    await waitFor('the source NAD cached', () => Promise.resolve(informers.nads.get('ai-workloads/rail-c-source') !== undefined), { timeoutMs: 15_000 });
    expect(informers.nads.get('ai-workloads/dra-sriov-never-cached')).toBeUndefined();
    expect(informers.nads.list().filter((cached) => cached.metadata.labels?.[keys.managedBy] === MANAGED_BY_VALUE)).toEqual([]);
  }, 30_000);

  it('a node state’s sync status alone costs neither a reconciliation nor a request; its inventory wakes it', async () => {
    await delay(1_500);
    const before = reconciliations;
    const seen = (await controllerRequests()).length;
    const updates = nodeStateUpdates;
    await client.patch(
      resourceTypes.sriovNetworkNodeState,
      { namespace: OPERATOR_NS, name: NODE, subresource: 'status' },
      { status: { syncStatus: 'InProgress', lastSyncError: '' } },
      'application/merge-patch+json',
    );
    const state = await client.get<KubeObject & { status: { syncStatus?: string } }>(resourceTypes.sriovNetworkNodeState, {
      namespace: OPERATOR_NS,
      name: NODE,
    });
    expect(state.status.syncStatus).toBe('InProgress');
    await waitFor('the informer sees the sync status', () => Promise.resolve(nodeStateUpdates > updates), { timeoutMs: 10_000 });
    await delay(1_500);
    expect(reconciliations).toBe(before);
    expect((await controllerRequests()).slice(seen)).toEqual([]);

    // A second VF on the PF: the inventory changed, and that is worth a reconciliation.
    await client.patch(
      resourceTypes.sriovNetworkNodeState,
      { namespace: OPERATOR_NS, name: NODE, subresource: 'status' },
      {
        status: {
          interfaces: [
            {
              name: 'ens1f0',
              pciAddress: '0000:3b:00.0',
              vendor: '15b3',
              Vfs: [
                { pciAddress: '0000:3b:00.2', vfID: 0 },
                { pciAddress: '0000:3b:00.3', vfID: 1 },
              ],
            },
          ],
        },
      },
      'application/merge-patch+json',
    );
    await waitFor('a reconciliation of the new inventory', () => Promise.resolve(reconciliations > before), { timeoutMs: 10_000 });
  }, 30_000);

  it('a reconciliation with nothing to change reads the caches only: no write, no LIST, no GET', async () => {
    await delay(1_500);
    const before = reconciliations;
    const seen = (await controllerRequests()).length;
    // A label no policy selects by: it wakes the controller (labels select policies), and changes nothing.
    await client.patch(resourceTypes.node, { name: NODE }, { metadata: { labels: { 'example.com/unrelated': 'true' } } }, 'application/merge-patch+json');
    await waitFor('a reconciliation', () => Promise.resolve(reconciliations > before), { timeoutMs: 10_000 });
    await delay(500);
    expect((await controllerRequests()).slice(seen)).toEqual([]);
    expect(lastSummary).toMatchObject({ applied: 0, deleted: 0, statusWrites: 0, liveReads: 0, failures: [] });
    expect(lastSummary?.plan.verdicts.size).toBe(1);
  }, 30_000);

  it('writes a generated DeviceAttributes or SriovResourcePolicy deleted by hand again at once, not at the next resync', async () => {
    const policy = await client.get(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name: 'rail-a-policy' });
    for (const [type, name] of [
      [resourceTypes.deviceAttributes, `dra-policy-${policy.metadata.uid}-attrs`],
      [resourceTypes.sriovResourcePolicy, NODE],
    ] as const) {
      const before = await client.get(type, { namespace: OPERATOR_NS, name });
      await client.delete(type, { namespace: OPERATOR_NS, name });
      // The policies' resync is five minutes away; only the deletion's own event can bring it back this soon.
      await waitFor(
        `${type.kind} ${name} written again`,
        async () => {
          const again = await client.get(type, { namespace: OPERATOR_NS, name }).catch(() => undefined);
          return again !== undefined && again.metadata.uid !== before.metadata.uid;
        },
        { timeoutMs: 10_000 },
      );
    }
  }, 30_000);
});

/** The controller's requests so far, watches aside, as `verb resource/name`. */
async function controllerRequests(): Promise<string[]> {
  return ((await cp.auditLog?.requests()) ?? [])
    .filter((event) => event.user.username === CONTROLLER_USER && event.verb !== 'watch')
    .map((event) => `${event.verb} ${event.objectRef?.resource ?? ''}/${event.objectRef?.name ?? ''}`);
}
