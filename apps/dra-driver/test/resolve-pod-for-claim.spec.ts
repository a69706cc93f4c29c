// Consumer resolution (§6.1) against a real v1.36.3 API server: every object is stored and returned by
// kube-apiserver, so its validation, defaulting and JSON encoding (omitted fields, empty lists) are the
// real ones. In the first control plane no scheduler or controller runs, so that no controller reacts to a
// replaced Pod or a stale reservation; the test writes what they would: claim allocations and reservations
// through the status subresource, a template-generated claim with the Pod as its controller plus the Pod
// status entry naming it, and Pods bound to a node by spec.nodeName. The second runs the real resource
// claim controller, whose generated claim and Pod status entry must resolve as well.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { kubeConsumerReader } from '../src/managed/kube-consumer-reader.ts';
import type { DeviceSnapshot } from '../src/managed/owned-results.ts';
import { type ResolveContext, resolvePodForClaim } from '../src/managed/resolve-pod-for-claim.ts';
import { rejection } from './consumer-fixtures.ts';

const WORKLOADS = 'workloads';
const NODE = 'worker-a';
const OTHER_NODE = 'worker-b';
const VF_A = '0000-3b-00-2';
const VF_B = '0000-3b-00-3';
const SNAPSHOT: DeviceSnapshot = { pool: NODE, devices: new Set([VF_A, VF_B]) };

const vf = (device: string) => ({ request: 'vfs', driver: DRIVER_NAME, pool: NODE, device });
const GPU = { request: 'gpu', driver: 'gpu.nvidia.com', pool: NODE, device: 'gpu-0' };

type PodClaimSource = { readonly name: string } & ({ readonly resourceClaimName: string } | { readonly resourceClaimTemplateName: string });

/** A Pod bound to `nodeName` whose one container uses every claim entry. */
function createPod(admin: KubeClient, name: string, claims: readonly PodClaimSource[], nodeName = NODE): Promise<KubeObject> {
  return admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName,
        resourceClaims: claims,
        containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: claims.map((claim) => ({ name: claim.name })) } }],
      },
    },
    { namespace: WORKLOADS },
  );
}

/** What the resource claim controller records for template entries. */
async function writeClaimStatuses(admin: KubeClient, pod: string, statuses: readonly { name: string; resourceClaimName?: string }[]): Promise<void> {
  await admin.patch(
    resourceTypes.pod,
    { namespace: WORKLOADS, name: pod, subresource: 'status' },
    { status: { resourceClaimStatuses: statuses } },
    contentTypes.mergePatch,
  );
}

/** A claim asking for two VFs and a GPU; `owner` makes it generated for that Pod. */
function createClaim(admin: KubeClient, name: string, owner?: KubeObject): Promise<KubeObject> {
  const ownerReferences =
    owner === undefined
      ? []
      : [{ apiVersion: 'v1', kind: 'Pod', name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }];
  return admin.create(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, ownerReferences },
      spec: {
        devices: {
          requests: [
            { name: 'vfs', exactly: { deviceClassName: 'sriov-vf', count: 2 } },
            { name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } },
          ],
        },
      },
    },
    { namespace: WORKLOADS },
  );
}

/** What kube-scheduler writes: the allocation (two VFs of this driver, a GPU of another) and the reservation. */
async function allocate(admin: KubeClient, claim: string, consumer: KubeObject): Promise<void> {
  await admin.patch(
    resourceTypes.resourceClaim,
    { namespace: WORKLOADS, name: claim, subresource: 'status' },
    {
      status: {
        allocation: { devices: { results: [vf(VF_A), GPU, vf(VF_B)] } },
        reservedFor: [{ resource: 'pods', name: consumer.metadata.name, uid: consumer.metadata.uid }],
      },
    },
    contentTypes.mergePatch,
  );
}

/** The claim as the prepare path reads it: live, undecoded. */
const liveClaim = (admin: KubeClient, name: string): Promise<KubeObject> => admin.get(resourceTypes.resourceClaim, { namespace: WORKLOADS, name });

/** What the driver on NODE passes: its API client, its node identity, and the devices it publishes. */
const driverContext = (admin: KubeClient, nodeUID: string, overrides: Partial<ResolveContext> = {}): ResolveContext => ({
  reader: kubeConsumerReader(admin),
  nodeName: NODE,
  nodeUID,
  driverName: DRIVER_NAME,
  snapshot: SNAPSHOT,
  purpose: 'prepare',
  ...overrides,
});

describe('resolvePodForClaim on a real API server', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let nodeUID: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = cp.adminClient;
    await createNamespace(admin, WORKLOADS);
    nodeUID = (await createReadyNode(admin, NODE)).metadata.uid;
    await createReadyNode(admin, OTHER_NODE);
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  }, 60_000);

  const context = (overrides: Partial<ResolveContext> = {}): ResolveContext => driverContext(admin, nodeUID, overrides);

  it('resolves a direct claim of a Pod whose template-status list is empty, ignoring the GPU of another driver', async () => {
    const pod = await createPod(admin, 'direct', [{ name: 'net', resourceClaimName: 'direct-nics' }]);
    await writeClaimStatuses(admin, 'direct', []);
    const claim = await createClaim(admin, 'direct-nics');
    await allocate(admin, 'direct-nics', pod);
    const stored = await admin.get(resourceTypes.pod, { namespace: WORKLOADS, name: 'direct' });
    // The API server stores the empty list as no list at all: the resolver must not need it.
    expect((stored['status'] as { resourceClaimStatuses?: unknown }).resourceClaimStatuses).toBeUndefined();

    const resolved = await resolvePodForClaim(await liveClaim(admin, 'direct-nics'), context());
    expect({ ...resolved, livePod: resolved.livePod.metadata.uid, otherClaims: [...resolved.otherClaims.keys()] }).toEqual({
      livePod: pod.metadata.uid,
      otherClaims: [],
      pod: { namespace: WORKLOADS, name: 'direct', uid: pod.metadata.uid, nodeName: NODE, annotations: {} },
      claims: [{ name: 'direct-nics', uid: claim.metadata.uid, podClaimNames: ['net'] }],
      results: [
        { request: 'vfs', pool: NODE, device: VF_A },
        { request: 'vfs', pool: NODE, device: VF_B },
      ],
    });
  });

  it('resolves a template-generated claim controlled by the Pod', async () => {
    const pod = await createPod(admin, 'templated', [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }]);
    const claim = await createClaim(admin, 'templated-net-x7k2p', pod);
    await writeClaimStatuses(admin, 'templated', [{ name: 'net', resourceClaimName: 'templated-net-x7k2p' }]);
    await allocate(admin, 'templated-net-x7k2p', pod);

    const resolved = await resolvePodForClaim(await liveClaim(admin, 'templated-net-x7k2p'), context());
    expect(resolved.pod.uid).toBe(pod.metadata.uid);
    expect(resolved.claims).toEqual([{ name: 'templated-net-x7k2p', uid: claim.metadata.uid, podClaimNames: ['net'] }]);
  });

  it('lists a claim named by two Pod entries once', async () => {
    const pod = await createPod(admin, 'aliased', [
      { name: 'net', resourceClaimName: 'aliased-nics' },
      { name: 'net-again', resourceClaimName: 'aliased-nics' },
    ]);
    const claim = await createClaim(admin, 'aliased-nics');
    await allocate(admin, 'aliased-nics', pod);

    const resolved = await resolvePodForClaim(await liveClaim(admin, 'aliased-nics'), context());
    expect(resolved.claims).toEqual([{ name: 'aliased-nics', uid: claim.metadata.uid, podClaimNames: ['net', 'net-again'] }]);
  });

  it('skips a template claim the controller intentionally did not create', async () => {
    const pod = await createPod(admin, 'partial', [
      { name: 'net', resourceClaimName: 'partial-nics' },
      { name: 'optional', resourceClaimTemplateName: 'maybe' },
    ]);
    await writeClaimStatuses(admin, 'partial', [{ name: 'optional' }]);
    const claim = await createClaim(admin, 'partial-nics');
    await allocate(admin, 'partial-nics', pod);

    const resolved = await resolvePodForClaim(await liveClaim(admin, 'partial-nics'), context());
    expect(resolved.claims).toEqual([{ name: 'partial-nics', uid: claim.metadata.uid, podClaimNames: ['net'] }]);
  });

  it('refuses a Pod bound to another node', async () => {
    const pod = await createPod(admin, 'elsewhere', [{ name: 'net', resourceClaimName: 'elsewhere-nics' }], OTHER_NODE);
    await createClaim(admin, 'elsewhere-nics');
    await allocate(admin, 'elsewhere-nics', pod);

    const error = await rejection(resolvePodForClaim(await liveClaim(admin, 'elsewhere-nics'), context()));
    expect(error.code).toBe('ConsumerMismatch');
    expect(error.detail).toBe(`the Pod is bound to node ${OTHER_NODE}, this driver serves ${NODE}`);
  });

  it('refuses a Pod replaced under the same name, and the claim generated for its predecessor', async () => {
    const first = await createPod(admin, 'replaced', [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }]);
    await createClaim(admin, 'replaced-net-x7k2p', first);
    await writeClaimStatuses(admin, 'replaced', [{ name: 'net', resourceClaimName: 'replaced-net-x7k2p' }]);
    await allocate(admin, 'replaced-net-x7k2p', first);
    await admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name: 'replaced' }, { gracePeriodSeconds: 0 });
    const second = await createPod(admin, 'replaced', [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }]);
    await writeClaimStatuses(admin, 'replaced', [{ name: 'net', resourceClaimName: 'replaced-net-x7k2p' }]);

    const replaced = await rejection(resolvePodForClaim(await liveClaim(admin, 'replaced-net-x7k2p'), context()));
    expect(replaced.code).toBe('ConsumerMismatch');
    expect(replaced.detail).toBe(
      `the Pod has UID ${second.metadata.uid}, the claim is reserved for UID ${first.metadata.uid}: it was replaced under the same name`,
    );

    // Even reserved for the new Pod, the claim generated for the old one is not this Pod's.
    await admin.patch(
      resourceTypes.resourceClaim,
      { namespace: WORKLOADS, name: 'replaced-net-x7k2p', subresource: 'status' },
      { status: { reservedFor: [{ resource: 'pods', name: 'replaced', uid: second.metadata.uid }] } },
      contentTypes.mergePatch,
    );
    const stale = await rejection(resolvePodForClaim(await liveClaim(admin, 'replaced-net-x7k2p'), context()));
    expect(stale.code).toBe('ConsumerMismatch');
    expect(stale.detail).toMatch(
      new RegExp(`was not created for Pod ${WORKLOADS}/replaced \\(${second.metadata.uid}\\): it is controlled by Pod replaced \\(${first.metadata.uid}\\)`),
    );
  });

  it('refuses to serve a Node re-created since the driver started', async () => {
    const error = await rejection(resolvePodForClaim(await liveClaim(admin, 'direct-nics'), context({ nodeUID: '00000000-0000-4000-8000-000000000000' })));
    expect(error.code).toBe('ConsumerMismatch');
    expect(error.object).toEqual({ kind: 'Node', name: NODE, uid: nodeUID });
  });
});

describe('resolvePodForClaim with the real resource claim controller', () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await startControlPlane({ controllerManager: true });
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  }, 60_000);

  it('resolves the claim kube-controller-manager generated from a ResourceClaimTemplate', async () => {
    const admin = cp.adminClient;
    await createNamespace(admin, WORKLOADS);
    const nodeUID = (await createReadyNode(admin, NODE)).metadata.uid;
    await admin.create(
      resourceTypes.resourceClaimTemplate,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        metadata: { name: 'two-vfs' },
        spec: {
          spec: {
            devices: {
              requests: [
                { name: 'vfs', exactly: { deviceClassName: 'sriov-vf', count: 2 } },
                { name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } },
              ],
            },
          },
        },
      },
      { namespace: WORKLOADS },
    );
    const pod = await createPod(admin, 'generated', [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }]);
    let generated = '';
    await waitFor(
      'the generated claim recorded in the Pod status',
      async () => {
        const live = await admin.get(resourceTypes.pod, { namespace: WORKLOADS, name: 'generated' });
        const statuses = (live['status'] as { resourceClaimStatuses?: { name: string; resourceClaimName?: string }[] } | undefined)?.resourceClaimStatuses;
        generated = statuses?.find((status) => status.name === 'net')?.resourceClaimName ?? '';
        return generated !== '';
      },
      { timeoutMs: 30_000 },
    );
    await allocate(admin, generated, pod);

    const resolved = await resolvePodForClaim(await liveClaim(admin, generated), driverContext(admin, nodeUID));
    expect(resolved.pod).toEqual({ namespace: WORKLOADS, name: 'generated', uid: pod.metadata.uid, nodeName: NODE, annotations: {} });
    expect(resolved.claims).toEqual([{ name: generated, uid: expect.any(String), podClaimNames: ['net'] }]);
    expect(resolved.results.map((result) => result.device)).toEqual([VF_A, VF_B]);
  }, 60_000);
});
