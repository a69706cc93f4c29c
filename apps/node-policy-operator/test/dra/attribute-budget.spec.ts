// The attribute budget of a policy's generated DeviceAttributes on a real API server with the chart's CRDs:
// the operator adds resourceName (and the NAD pair for a SriovNetwork reference), so 31 entries are the most
// spec.dra can hold. A full map is admitted, reconciled and written with exactly 32 attributes; one more,
// stored past today's admission, is refused by reconciliation as InvalidDRAAttribute instead of failing
// the write on every retry.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, storeObjectDirectly, waitFor } from '@sriov-dra/k8s/testing';
import type { NodePolicyReconcilerOptions } from '../../src/dra/node-policy-reconciler.ts';
import { type CachedReconciler, startCachedReconciler } from './cached-reconciler.ts';
import { reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';
import { seedNode } from '../cluster-objects.ts';

const OPERATOR_NS = 'sriov-network-operator';
const NAD_NS = 'ai-workloads';
const NODE = 'worker-1';
const NAME_KEY = 'sriovnetwork.openshift.io/sriovNetworkName';
const NAMESPACE_KEY = 'sriovnetwork.openshift.io/sriovNetworkNamespace';
const PFS = ['ens1f0', 'ens2f0', 'ens3f0', 'ens4f0'];

type Condition = { type: string; status: string; reason: string; message: string };
type Policy = KubeObject & { status?: { conditions?: Condition[] } };
type Attributes = KubeObject & { spec: { attributes: Record<string, unknown> } };

let cp: ControlPlane;
let client: KubeClient;
let options: Omit<NodePolicyReconcilerOptions, 'informers' | 'nodeProblems'>;
let reconciler: CachedReconciler;

const custom = (count: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`example.com/a${index}`, { int: index }]));
const reference = { [NAME_KEY]: { string: 'rail-a-net' }, [NAMESPACE_KEY]: { string: OPERATOR_NS } };

function policy(
  name: string,
  pfName: string,
  attributes: Record<string, unknown>,
): Record<string, unknown> & { metadata: { name: string; namespace: string } } {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { name, namespace: OPERATOR_NS },
    spec: { resourceName: 'sriov_vfs', nodeSelector: { 'kubernetes.io/hostname': NODE }, numVfs: 4, nicSelector: { pfNames: [pfName] }, dra: { attributes } },
  };
}

const getPolicy = (name: string): Promise<Policy> => client.get<Policy>(resourceTypes.sriovNetworkNodePolicy, { namespace: OPERATOR_NS, name });
const draReady = async (name: string): Promise<Condition | undefined> =>
  (await getPolicy(name)).status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady');
const attributesOf = async (uid: string): Promise<Attributes | undefined> =>
  client.get<Attributes>(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: `dra-policy-${uid}-attrs` }).catch(() => undefined);

/** A policy as a cluster could hold it from before the CRD's budget rule (or with the webhook off). */
async function storedPast(body: ReturnType<typeof policy>): Promise<KubeObject> {
  const stored = await storeObjectDirectly(cp.etcdEndpoint, resourceTypes.sriovNetworkNodePolicy, body);
  await waitFor(
    `policy ${body.metadata.name} served`,
    () =>
      getPolicy(body.metadata.name).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 10_000 },
  );
  return stored;
}

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  for (const namespace of [OPERATOR_NS, NAD_NS]) await createNamespace(client, namespace);
  options = { client, logger: pino({ level: 'silent' }), operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', draEnabled: true };
  await seedNode(
    client,
    OPERATOR_NS,
    NODE,
    { 'kubernetes.io/hostname': NODE },
    PFS.map((name, index) => {
      const bus = (0x3b + index).toString(16);
      return {
        name,
        pciAddress: `0000:${bus}:00.0`,
        vendor: '15b3',
        deviceID: '1017',
        Vfs: [0, 1].map((vfID) => ({ pciAddress: `0000:${bus}:00.${String(vfID + 2)}`, vfID, vendor: '15b3', deviceID: '1018' })),
      };
    }),
  );
  await client.create(
    resourceTypes.sriovNetwork,
    {
      apiVersion: 'sriovnetwork.openshift.io/v1',
      kind: 'SriovNetwork',
      metadata: { name: 'rail-a-net', namespace: OPERATOR_NS },
      spec: { resourceName: 'sriov_vfs', networkNamespace: NAD_NS, ipam: '{"type":"host-local","subnet":"192.0.2.0/24"}' },
    },
    { namespace: OPERATOR_NS },
  );
  await reconcileSriovNetwork({ namespace: OPERATOR_NS, name: 'rail-a-net' }, options);
  reconciler = await startCachedReconciler(options, client);
}, 120_000);

afterAll(async () => {
  await reconciler.stop();
  await cp.stop();
});

describe('the generated DeviceAttributes budget', () => {
  let full: Policy;
  let fullWithReference: Policy;
  let over: KubeObject;
  let overWithReference: KubeObject;

  it('admits and writes a full map: 31 custom attributes, or 29 and a SriovNetwork reference, make 32', async () => {
    full = await client.create<Policy>(resourceTypes.sriovNetworkNodePolicy, policy('full', 'ens1f0', custom(31)), { namespace: OPERATOR_NS });
    fullWithReference = await client.create<Policy>(
      resourceTypes.sriovNetworkNodePolicy,
      policy('full-with-reference', 'ens2f0', { ...custom(29), ...reference }),
      { namespace: OPERATOR_NS },
    );
    over = await storedPast(policy('over', 'ens3f0', custom(32)));
    overWithReference = await storedPast(policy('over-with-reference', 'ens4f0', { ...custom(30), ...reference }));

    const summary = await reconciler.reconcile();
    expect(summary.failures).toEqual([]);
    expect(await draReady('full')).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    expect(await draReady('full-with-reference')).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    expect(Object.keys((await attributesOf(full.metadata.uid))?.spec.attributes ?? {}).sort()).toEqual(
      [...Object.keys(custom(31)), 'k8s.cni.cncf.io/resourceName'].sort(),
    );
    expect(Object.keys((await attributesOf(fullWithReference.metadata.uid))?.spec.attributes ?? {}).sort()).toEqual(
      [
        ...Object.keys(custom(29)),
        'k8s.cni.cncf.io/resourceName',
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName',
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace',
      ].sort(),
    );
  }, 60_000);

  it('refuses one attribute more as InvalidDRAAttribute, naming the count, and writes nothing for it', async () => {
    // The first reconciliation already judged them; a second one must not retry a write either.
    const summary = await reconciler.reconcile();
    expect(summary.failures).toEqual([]);
    expect(await draReady('over')).toMatchObject({
      status: 'False',
      reason: 'InvalidDRAAttribute',
      message: expect.stringContaining('32 custom attributes, the generated k8s.cni.cncf.io/resourceName make 33 attributes, over the per-device limit of 32'),
    });
    expect(await draReady('over-with-reference')).toMatchObject({
      status: 'False',
      reason: 'InvalidDRAAttribute',
      message: expect.stringContaining('make 33 attributes, over the per-device limit of 32'),
    });
    expect(await attributesOf(over.metadata.uid)).toBeUndefined();
    expect(await attributesOf(overWithReference.metadata.uid)).toBeUndefined();
  }, 60_000);
});
