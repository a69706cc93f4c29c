// The plan of a Pod's managed bindings on a real API server: two claims of one Pod, one source template
// named by the published device attributes, interfaces numbered over both claims whichever is planned
// first, the source read once and recorded by UID and resourceVersion.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type PodPlanContext, planClaimBindings } from '../../src/managed/pod-binding-plan.ts';
import type { ResolvedConsumer } from '../../src/managed/resolve-pod-for-claim.ts';

const NS = 'ai-workloads';
const NODE = { name: 'worker-1', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
const NAD_NAME = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';

let cp: ControlPlane;
let admin: KubeClient;
let source: KubeObject;
const claims = new Map<string, KubeObject>();
let consumer: ResolvedConsumer;
let context: PodPlanContext;

async function allocatedClaim(name: string, device: string): Promise<KubeObject> {
  await admin.create(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: NS },
      spec: { devices: { requests: [{ name: 'nic', exactly: { deviceClassName: 'sriov-vf' } }] } },
    },
    { namespace: NS },
  );
  return admin.patch(
    resourceTypes.resourceClaim,
    { namespace: NS, name, subresource: 'status' },
    { status: { allocation: { devices: { results: [{ request: 'nic', driver: DRIVER_NAME, pool: NODE.name, device }] } } } },
    'application/merge-patch+json',
  );
}

/** A source template under `name` whose CNI network is rail-a. */
function createTemplate(name: string): Promise<KubeObject> {
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace: NS },
      spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}' },
    },
    { namespace: NS },
  );
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  source = await createTemplate('rail-a');
  claims.set('nics-a', await allocatedClaim('nics-a', '0000-3b-00-2'));
  claims.set('nics-b', await allocatedClaim('nics-b', '0000-3b-00-3'));
  const pod = await admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'trainer-0', namespace: NS },
      spec: {
        nodeName: NODE.name,
        containers: [{ name: 'c', image: 'registry.invalid/c' }],
        resourceClaims: [
          { name: 'rail-b', resourceClaimName: 'nics-b' },
          { name: 'rail-a', resourceClaimName: 'nics-a' },
        ],
      },
    },
    { namespace: NS },
  );
  const uidOf = (name: string): string => claims.get(name)?.metadata.uid ?? '';
  consumer = {
    pod: { namespace: NS, name: 'trainer-0', uid: pod.metadata.uid, nodeName: NODE.name, annotations: pod.metadata.annotations ?? {} },
    claims: [
      { name: 'nics-b', uid: uidOf('nics-b'), podClaimNames: ['rail-b'] },
      { name: 'nics-a', uid: uidOf('nics-a'), podClaimNames: ['rail-a'] },
    ],
    results: [],
    livePod: pod as never,
    otherClaims: claims,
  };
  const attributes = { [NAD_NAME]: { string: 'rail-a' } };
  context = {
    client: admin,
    node: NODE,
    driverName: DRIVER_NAME,
    eligible: new Map([
      ['0000-3b-00-2', { attributes }],
      ['0000-3b-00-3', { attributes }],
    ]),
    pciOf: (device) => ({ '0000-3b-00-2': '0000:3b:00.2', '0000-3b-00-3': '0000:3b:00.3' })[device],
    recorded: () => undefined,
  };
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('planClaimBindings', () => {
  it('plans each claim’s bindings with interfaces numbered over all the Pod’s claims, whichever claim comes first', async () => {
    const b = await planClaimBindings(consumer, claims.get('nics-b')?.metadata.uid ?? '', claims.get('nics-b'), context);
    const a = await planClaimBindings(consumer, claims.get('nics-a')?.metadata.uid ?? '', claims.get('nics-a'), context);
    // Claims ordered by their Pod alias: rail-a before rail-b (§6.5), so nics-a's VF is the first managed interface.
    expect([...a.values()].map((binding) => [binding.device, binding.pciAddress, binding.interface])).toEqual([['0000-3b-00-2', '0000:3b:00.2', 'dra0']]);
    expect([...b.values()].map((binding) => [binding.device, binding.pciAddress, binding.interface])).toEqual([['0000-3b-00-3', '0000:3b:00.3', 'dra1']]);
    expect(a.get('0000-3b-00-2')?.source).toEqual({
      namespace: NS,
      name: 'rail-a',
      uid: source.metadata.uid,
      resourceVersion: source.metadata.resourceVersion,
    });
    expect(a.get('0000-3b-00-2')?.renderedConfig).toContain('"deviceID":"0000:3b:00.2"');
  }, 30_000);

  it('refuses a device that is no longer published before anything is planned, and only for its own claim', async () => {
    const withdrawn = { ...context, eligible: new Map([['0000-3b-00-2', { attributes: { [NAD_NAME]: { string: 'rail-a' } } }]]) };
    await expect(planClaimBindings(consumer, claims.get('nics-b')?.metadata.uid ?? '', claims.get('nics-b'), withdrawn)).rejects.toMatchObject({
      code: 'DeviceNotEligible',
    });
    // nics-b's device is judged when nics-b is prepared, not held against its sibling.
    const a = await planClaimBindings(consumer, claims.get('nics-a')?.metadata.uid ?? '', claims.get('nics-a'), withdrawn);
    expect([...a.values()].map((binding) => binding.interface)).toEqual(['dra0']);
  }, 30_000);

  it('takes a prepared claim from its record: its interface kept, its template and publication never judged again', async () => {
    const b = await planClaimBindings(consumer, claims.get('nics-b')?.metadata.uid ?? '', claims.get('nics-b'), context);
    const recordedB = [...b.values()].map((binding) => ({ ...binding, phase: 'Ready' as const, shadow: { ...binding.shadow, uid: '' } }));
    // B as a checkpoint froze it, under a name today's numbering would not give it; then B's device is
    // withdrawn from the publication and the only template is deleted: A's own template is recreated.
    const frozen = recordedB.map((binding) => ({ ...binding, interface: 'dra7' }));
    await admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: 'rail-a' });
    const withdrawn: PodPlanContext = {
      ...context,
      eligible: new Map([['0000-3b-00-2', { attributes: { [NAD_NAME]: { string: 'rail-a-2' } } }]]),
      recorded: (uid) => (uid === claims.get('nics-b')?.metadata.uid ? frozen : undefined),
    };
    await createTemplate('rail-a-2');
    const a = await planClaimBindings(consumer, claims.get('nics-a')?.metadata.uid ?? '', claims.get('nics-a'), withdrawn);
    expect([...a.values()].map((binding) => [binding.device, binding.interface, binding.source.name])).toEqual([['0000-3b-00-2', 'dra0', 'rail-a-2']]);

    // A recorded name that today's numbering gives the new claim is a collision, refused before anything is planned.
    const colliding: PodPlanContext = {
      ...withdrawn,
      recorded: (uid) => (uid === claims.get('nics-b')?.metadata.uid ? recordedB.map((binding) => ({ ...binding, interface: 'dra0' })) : undefined),
    };
    await expect(planClaimBindings(consumer, claims.get('nics-a')?.metadata.uid ?? '', claims.get('nics-a'), colliding)).rejects.toMatchObject({
      code: 'DuplicateInterfaceName',
    });
    // And a recorded binding holding the same VF is a conflict, whatever the claims' device names say.
    const samePci: PodPlanContext = {
      ...withdrawn,
      recorded: (uid) => (uid === claims.get('nics-b')?.metadata.uid ? frozen.map((binding) => ({ ...binding, pciAddress: '0000:3b:00.2' })) : undefined),
    };
    await expect(planClaimBindings(consumer, claims.get('nics-a')?.metadata.uid ?? '', claims.get('nics-a'), samePci)).rejects.toMatchObject({
      code: 'ConflictingDeviceRequirements',
    });
  }, 30_000);
});
