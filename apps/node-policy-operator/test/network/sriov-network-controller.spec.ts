// The running controller on a real API server: its watches, not a test, decide when it reconciles. A
// namespace created late, a NAD deleted by hand and a SriovNetwork deleted each have to reach it by an event.
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { createOperatorInformers } from '../../src/controller/shared-informers.ts';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { type SriovNetworkController, startSriovNetworkController } from '../../src/network/sriov-network-controller.ts';

const OPERATOR_NS = 'sriov-network-operator';

type Network = KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };

let cp: ControlPlane;
const stopWatching = new AbortController();
let watching: Promise<void> = Promise.resolve();
let client: KubeClient;
let controller: SriovNetworkController;

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
  const logger = pino({ level: 'silent' });
  const informers = createOperatorInformers(client, logger, { operatorNamespace: OPERATOR_NS, mode: 'standalone' });
  const { namespaces } = informers;
  if (namespaces === undefined) throw new Error('standalone mode opened no Namespace watch');
  controller = startSriovNetworkController({
    informers: { ...informers, namespaces },
    client,
    logger: pino({ level: 'silent' }),
    operatorNamespace: OPERATOR_NS,
    resourcePrefix: 'openshift.io',
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

async function readyReason(name: string): Promise<string | undefined> {
  const network = await client.get<Network>(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name }).catch(() => undefined);
  return network?.status?.conditions?.find((condition) => condition.type === 'Ready')?.reason;
}

async function nadExists(namespace: string, name: string): Promise<boolean> {
  try {
    await client.get(resourceTypes.networkAttachmentDefinition, { namespace, name });
    return true;
  } catch (error) {
    if (isApiError(error, 'NotFound')) return false;
    throw error;
  }
}

describe('SriovNetwork controller, running', () => {
  it('provisions once the target namespace appears, restores a deleted NAD, and cleans up after the SriovNetwork', async () => {
    await client.create(
      resourceTypes.sriovNetwork,
      {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetwork',
        metadata: { name: 'rail-a', namespace: OPERATOR_NS },
        spec: { resourceName: 'rail_a', networkNamespace: 'late' },
      },
      { namespace: OPERATOR_NS },
    );
    await waitFor('NamespaceNotFound', async () => (await readyReason('rail-a')) === 'NamespaceNotFound', { timeoutMs: 15_000 });

    await createNamespace(client, 'late');
    await waitFor('the NAD in the new namespace', () => nadExists('late', 'rail-a'), { timeoutMs: 15_000 });
    await waitFor('NetworkReady', async () => (await readyReason('rail-a')) === 'NetworkReady', { timeoutMs: 15_000 });

    await client.delete(resourceTypes.networkAttachmentDefinition, { namespace: 'late', name: 'rail-a' });
    await waitFor('the NAD restored', () => nadExists('late', 'rail-a'), { timeoutMs: 15_000 });

    await client.delete(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name: 'rail-a' });
    await waitFor('the NAD removed', async () => !(await nadExists('late', 'rail-a')), { timeoutMs: 15_000 });
    await waitFor(
      'the SriovNetwork gone (finalizer released)',
      async () =>
        await client.get(resourceTypes.sriovNetwork, { namespace: OPERATOR_NS, name: 'rail-a' }).then(
          () => false,
          () => true,
        ),
      { timeoutMs: 15_000 },
    );
  }, 90_000);
});
