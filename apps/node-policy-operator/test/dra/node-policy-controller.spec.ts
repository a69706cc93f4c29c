// The running node-policy controller: its watches decide when it reconciles. A SriovNetwork created after
// its policy, a status-only Ready change in both directions, and NAD churn that is not a referenced source
// (the driver's Pod shadows) — the last must not cost a reconciliation.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { createOperatorInformers } from '../../src/controller/shared-informers.ts';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type NodePolicyController, startNodePolicyController } from '../../src/dra/node-policy-controller.ts';
import { draReference, nodePolicyBody, seedNode, sriovNetworkBody } from '../cluster-objects.ts';
import { reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';

const OPERATOR_NS = 'sriov-network-operator';
const NODE = 'worker-1';

type Condition = { type: string; status: string; reason: string };
type WithConditions = KubeObject & { status?: { conditions?: Condition[] } };

let cp: ControlPlane;
const stopWatching = new AbortController();
let watching: Promise<void> = Promise.resolve();
let client: KubeClient;
let controller: NodePolicyController;
let reconciliations = 0;
const common = { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io' };

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
  await seedNode(client, OPERATOR_NS, NODE, { rail: 'true' }, [
    { name: 'ens1f0', pciAddress: '0000:3b:00.0', vendor: '15b3', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
  ]);
  const logger = pino({ level: 'silent' });
  const informers = createOperatorInformers(client, logger, { operatorNamespace: OPERATOR_NS });
  controller = startNodePolicyController({
    informers,
    ...common,
    client,
    logger: pino({ level: 'silent' }),
    draEnabled: true,
    onReconciled: () => {
      reconciliations += 1;
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
});
