// Which networks a Pod gets, compared with upstream multus-daemon v4.2.3 on the same node and requests: the
// v1.multus-cni.io/default-network annotation replacing the cluster network, defaultNetworks added except in
// systemNamespaces, and namespaceIsolation with globalNamespaces. The keys come in the multus-shim
// configuration, which both daemons overlay with their own daemon-config.json.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { createNamespace } from '@sriov-dra/k8s/testing';
import { DEFAULT_NETWORK_ANNOTATION } from '../../src/pipeline/network-plan.ts';
import { createPod } from '../pipeline/node-fixture.ts';
import { type Outcome, type ParityNode, type ParityPod, startParityNode } from './upstream-parity.ts';

const NS = 'parity-plan';
const OTHER = 'parity-plan-other';

let parity: ParityNode;
const pods = new Map<string, ParityPod>();

async function nad(admin: KubeClient, namespace: string, name: string): Promise<void> {
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace },
      spec: { config: JSON.stringify({ cniVersion: '1.0.0', name, type: 'sriov' }) },
    },
    { namespace },
  );
}

async function pod(admin: KubeClient, name: string, podAnnotations: Record<string, string>): Promise<void> {
  const created = await createPod(admin, NS, name);
  await admin.patch(resourceTypes.pod, { namespace: NS, name }, { metadata: { annotations: podAnnotations } }, 'application/merge-patch+json');
  pods.set(name, { namespace: NS, name, uid: created.metadata.uid });
}

function podNamed(name: string): ParityPod {
  const found = pods.get(name);
  if (found === undefined) throw new Error(`no Pod ${name}`);
  return found;
}

/** Which delegates ran on which interface, and whether the ADD succeeded (the error texts differ by design). */
function shape(outcome: Outcome): { ok: boolean; interfaces: readonly string[]; calls: string[] } {
  return {
    ok: outcome.code === 0,
    interfaces: outcome.interfaces,
    calls: outcome.calls.map((call) => `${call.ifName} ${(call.stdin as { name: string }).name}`),
  };
}

async function compare(podName: string, shimKeys: Record<string, unknown> = {}): Promise<ReturnType<typeof shape>> {
  const { ours, upstream } = await parity.addThroughBoth(podNamed(podName), shimKeys);
  expect({ ...ours, error: ours.error !== '' }).toEqual({ ...upstream, error: upstream.error !== '' });
  return shape(ours);
}

// Each case runs real ADDs through both daemons and their delegates, several seconds on a loaded machine.
jest.setTimeout(60_000);

beforeAll(async () => {
  parity = await startParityNode(NS, async (admin) => {
    await createNamespace(admin, OTHER);
    await nad(admin, 'kube-system', 'rec-cluster');
    await nad(admin, 'kube-system', 'rec-default-a');
    await nad(admin, NS, 'rec-own');
    await nad(admin, OTHER, 'rec-foreign');
    await pod(admin, 'overridden', { [DEFAULT_NETWORK_ANNOTATION]: 'rec-cluster', [annotations.networks]: 'rec-own' });
    await pod(admin, 'plain', { [annotations.networks]: 'rec-own' });
    await pod(admin, 'foreign', { [annotations.networks]: `${OTHER}/rec-foreign` });
    await pod(admin, 'kube-system', {});
  });
}, 180_000);

afterAll(async () => {
  await parity.stop();
}, 60_000);

describe('the networks of a Pod, compared with upstream multus-daemon v4.2.3', () => {
  it('the default-network annotation replaces the cluster network as eth0 (a NAD of the Multus namespace when unqualified)', async () => {
    expect(await compare('overridden')).toEqual({ ok: true, interfaces: [], calls: ['eth0 rec-cluster', 'net1 rec-own'] });
  });

  it('defaultNetworks follow the cluster network, except for a Pod in one of systemNamespaces', async () => {
    expect(await compare('plain', { defaultNetworks: ['rec-default-a'] })).toEqual({
      ok: true,
      interfaces: ['eth0'],
      calls: ['net1 rec-default-a', 'net2 rec-own'],
    });
    expect(await compare('plain', { defaultNetworks: ['rec-default-a'], systemNamespaces: [NS] })).toEqual({
      ok: true,
      interfaces: ['eth0'],
      calls: ['net1 rec-own'],
    });
  });

  it('namespaceIsolation refuses another namespace’s NAD before anything runs, unless it is one of globalNamespaces', async () => {
    expect(await compare('foreign', { namespaceIsolation: true })).toEqual({ ok: false, interfaces: [], calls: [] });
    expect(await compare('foreign', { namespaceIsolation: true, globalNamespaces: `default,${OTHER}` })).toEqual({
      ok: true,
      interfaces: ['eth0'],
      calls: ['net1 rec-foreign'],
    });
    expect(await compare('foreign')).toEqual({ ok: true, interfaces: ['eth0'], calls: ['net1 rec-foreign'] });
  });

  it('network-status: upstream skips it for a Pod whose name is one of systemNamespaces (it checks the name, not the namespace); this daemon writes it', async () => {
    const statusOf = async (): Promise<string | undefined> =>
      (await parity.cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'kube-system' })).metadata.annotations?.[annotations.networkStatus];
    expect((await parity.addThrough('upstream', podNamed('kube-system'))).code).toBe(0);
    expect(await statusOf()).toBeUndefined();
    expect((await parity.addThrough('ours', podNamed('kube-system'))).code).toBe(0);
    expect((JSON.parse((await statusOf()) ?? '[]') as { interface: string }[]).map((status) => status.interface)).toEqual(['eth0']);
  });
});
