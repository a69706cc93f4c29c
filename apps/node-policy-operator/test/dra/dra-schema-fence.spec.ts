// A node-policy reconciliation already under way when upstream's CRD replaces the one with spec.dra: its
// informer has relisted the policies pruned, before anything told the operator of the CRD change. The
// fence — a live read of the CRD after the caches were read — stops it before its first write, so what was
// generated for the pruned policy stays. The controller runs here without the guard's watch, which would
// otherwise stop it first.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, readCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type OperatorInformers, createOperatorInformers } from '../../src/controller/shared-informers.ts';
import { guardedCrd, judgeDraSchema, liveDraSchemaFence } from '../../src/crds/dra-schema-guard.ts';
import { type NodePolicyController, startNodePolicyController } from '../../src/dra/node-policy-controller.ts';
import type { NodePolicyReconcileSummary } from '../../src/dra/node-policy-reconciler.ts';
import { nodePolicyBody, seedNode } from '../cluster-objects.ts';

const OPERATOR_NS = 'sriov-network-operator';
const POLICY_CRD = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
const UPSTREAM_CRDS = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-crds/', import.meta.url));
const DRA = { attributes: { 'example.com/rail': { string: 'a' } } };

let cp: ControlPlane;
let admin: KubeClient;
let informers: OperatorInformers;
let controller: NodePolicyController;
const stopWatching = new AbortController();
let watching: Promise<void> = Promise.resolve();
const summaries: NodePolicyReconcileSummary[] = [];
/** How often a reconciliation asked the fence (each time one live read of the CRD). */
let fenceAsked = 0;

/** name → resourceVersion of every DeviceAttributes and SriovResourcePolicy of the operator namespace. */
async function generated(): Promise<Record<string, string>> {
  const entries = async (type: ResourceType): Promise<[string, string][]> =>
    (await admin.list(type, { namespace: OPERATOR_NS })).items.map((item) => [`${type.kind}/${item.metadata.name}`, item.metadata.resourceVersion]);
  return Object.fromEntries([...(await entries(resourceTypes.deviceAttributes)), ...(await entries(resourceTypes.sriovResourcePolicy))]);
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, OPERATOR_NS);
  await seedNode(admin, OPERATOR_NS, 'worker-1', { rail: 'true' }, [
    { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
  ]);
  await admin.create(
    resourceTypes.sriovNetworkNodePolicy,
    nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
      resourceName: 'rail_a',
      nodeSelector: { rail: 'true' },
      numVfs: 1,
      nicSelector: { pfNames: ['ens1f0'] },
      dra: DRA,
    }),
    { namespace: OPERATOR_NS },
  );
  const client = cp.clientFor('node-policy-operator', ['system:masters']);
  const ours = guardedCrd();
  // The generation the controllers start under, as the guard hands it to them.
  const epoch = judgeDraSchema(ours, await admin.get(resourceTypes.customResourceDefinition, { name: POLICY_CRD }));
  expect(epoch.served).toBe(true);
  informers = createOperatorInformers(client, pino({ level: 'silent' }), { operatorNamespace: OPERATOR_NS, mode: 'alongside-upstream' });
  controller = startNodePolicyController({
    informers,
    client,
    logger: pino({ level: 'silent' }),
    operatorNamespace: OPERATOR_NS,
    resourcePrefix: 'openshift.io',
    draEnabled: true,
    fence: (signal) => {
      fenceAsked += 1;
      return liveDraSchemaFence(client, ours, epoch)(signal);
    },
    onReconciled: (summary) => {
      summaries.push(summary);
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

describe('the DRA schema fence', () => {
  it('lets a reconciliation write while the CRD it started under serves spec.dra', async () => {
    // The summary comes after the reconciliation's last write; the DeviceAttributes is its first.
    await waitFor('an unfenced reconciliation that applied', () => Promise.resolve(summaries.some((summary) => summary.applied > 0 && !summary.fenced)), {
      timeoutMs: 20_000,
    });
    expect(Object.keys(await generated()).some((name) => name.startsWith('DeviceAttributes/dra-policy-'))).toBe(true);
    // The fence guards writes: a reconciliation with nothing to write asks nothing of the API server.
    const asked = fenceAsked;
    const reconciled = summaries.length;
    await admin.patch(resourceTypes.node, { name: 'worker-1' }, { metadata: { labels: { rack: 'r1' } } }, 'application/merge-patch+json');
    await waitFor('a reconciliation of the label change', () => Promise.resolve(summaries.length > reconciled), { timeoutMs: 20_000 });
    expect(summaries.at(-1)).toMatchObject({ applied: 0, deleted: 0, statusWrites: 0, fenced: false });
    expect(fenceAsked).toBe(asked);
  }, 30_000);

  it('stops a reconciliation that read policies pruned by a CRD change before anything told the controller of it', async () => {
    const before = await generated();
    const live = await admin.get(resourceTypes.customResourceDefinition, { name: POLICY_CRD });
    const upstream = readCrds(UPSTREAM_CRDS).find((crd) => (crd['metadata'] as { name: string }).name === POLICY_CRD) as Record<string, unknown>;
    await admin.request({
      method: 'PUT',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${POLICY_CRD}`,
      body: { ...upstream, metadata: { ...(upstream['metadata'] as object), resourceVersion: live.metadata.resourceVersion } },
    });
    // The informer's watch ends with the CRD's old storage; its relist holds the policy as now served, pruned.
    await waitFor(
      'the cached policy without spec.dra',
      () =>
        Promise.resolve(
          (informers.policies.get(`${OPERATOR_NS}/rail-a-policy`) as (KubeObject & { spec: { dra?: unknown } }) | undefined)?.spec.dra === undefined,
        ),
      { timeoutMs: 20_000 },
    );
    const reconciled = summaries.length;
    // A node label change wakes the controller, which plans from the pruned cache.
    await admin.patch(resourceTypes.node, { name: 'worker-1' }, { metadata: { labels: { zone: 'a' } } }, 'application/merge-patch+json');
    await waitFor('a reconciliation of the change', () => Promise.resolve(summaries.length > reconciled), { timeoutMs: 20_000 });

    const last = summaries.at(-1);
    // Unfenced, it would have withdrawn the policy's attributes and rewritten the node's config.
    expect(last?.plan.deviceAttributes).toEqual([]);
    expect({ fenced: last?.fenced, applied: last?.applied, deleted: last?.deleted, statusWrites: last?.statusWrites }).toEqual({
      fenced: true,
      applied: 0,
      deleted: 0,
      statusWrites: 0,
    });
    expect(await generated()).toEqual(before);
  }, 60_000);
});
