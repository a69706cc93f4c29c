// VfConfig from the allocation's stored config, on the real control plane of both supported releases:
// kube-scheduler allocates a two-request claim from our ResourceSlices, and the configuration that the
// prepare path (planClaimPreparation) computes from the claim as stored must not depend on the release.
//
// Where the releases differ (k8s.io/dynamic-resource-allocation, structured/internal/{stable,incubating,
// experimental}/allocator_*.go, Allocator.Allocate, "Populate configs"):
// - v1.36.3 (v0.36.3) copies each DeviceClass config once, with `requests` listing every request that uses
//   the class; a claim config keeps its own `requests` (an empty list stays empty).
// - v1.37.2 (v0.37.2, kubernetes#139731) then clears `requests` of every config that names all requests of
//   the claim (a selected subrequest counts for its request): "empty means all". The field is omitempty,
//   so the stored class config has no `requests` at all, while a claim config for one request keeps it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_API_VERSION, DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeObject, readPod, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import type { PhysicalFunction, VirtualFunction } from '../src/discovery/virtual-function.ts';
import { planClaimPreparation } from '../src/device/claim-plan.ts';
import type { InventoryDevice } from '../src/policy/policy-devices.ts';
import { SlicePublication } from '../src/slices/slice-publication.ts';
import { createClaimConsumer } from './claim-consumer.ts';

const NAMESPACE = 'dra-driver-sriov';
const WORKLOADS = 'workloads';
const NODE = 'worker-a';
const CLAIM = 'two-vfs';

const PF: PhysicalFunction = {
  pciAddress: '0000:3b:00.0',
  netdev: 'ens1f0',
  vendor: '15b3',
  deviceID: '1017',
  totalVfs: 8,
  numVfs: 4,
  linkType: 'ethernet',
  linkUp: true,
  pcieRoot: 'pci0000:3a',
};

const DEVICES: readonly InventoryDevice[] = Array.from({ length: 4 }, (_, index) => {
  const pciAddress = `0000:3b:00.${String(index + 2)}`;
  const vf: VirtualFunction = { pciAddress, vfIndex: index, pf: PF, vendor: '15b3', deviceID: '1018', driver: 'mlx5_core', rdmaCapable: false };
  return { name: pciAddress.replace(/[:.]/g, '-'), vf, attributes: { pciAddress: { string: pciAddress }, PFName: { string: 'ens1f0' } } };
});

const vfConfig = (fields: Record<string, unknown>) => ({ driver: DRIVER_NAME, parameters: { apiVersion: DRIVER_API_VERSION, kind: 'VfConfig', ...fields } });
const CLASS_CONFIG = vfConfig({ driver: 'vfio-pci', netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' });
const SECOND_CONFIG = vfConfig({ netAttachDefName: 'rail-b', ifName: 'net2' });

interface StoredClaim extends KubeObject {
  readonly status?: { readonly allocation?: { readonly devices?: { readonly config?: readonly Record<string, unknown>[] } } };
}

describe.each([
  { version: 'v1.36.3', classRequests: ['first', 'second'] },
  { version: 'v1.37.2', classRequests: undefined },
])('allocation config stored by Kubernetes $version', ({ version, classRequests }) => {
  let cp: ControlPlane;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  beforeAll(async () => {
    cp = await startControlPlane({ version, controllerManager: true, scheduler: true });
    const admin = cp.adminClient;
    await installCrds(admin);
    await createNamespace(admin, NAMESPACE);
    await createNamespace(admin, WORKLOADS);
    await createReadyNode(admin, NODE, { pool: 'gpu' });
    const publication = new SlicePublication({
      client: admin,
      driver: DRIVER_NAME,
      nodeName: NODE,
      namespace: NAMESPACE,
      limits: { listAttributes: false },
      inventory: () => DEVICES,
      resyncMs: 0,
    });
    running = publication.run(stop.signal);
    await admin.create(
      resourceTypes.sriovResourcePolicy,
      {
        apiVersion: DRIVER_API_VERSION,
        kind: 'SriovResourcePolicy',
        metadata: { name: 'all-vfs' },
        spec: {
          nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['gpu'] }] }] },
          configs: [{ resourceFilters: [{ pfNames: ['ens1f0'] }] }],
        },
      },
      { namespace: NAMESPACE },
    );
    await waitFor(
      'VFs published',
      async () =>
        (await admin.list<KubeObject & { spec: { devices?: unknown[] } }>(resourceTypes.resourceSlice)).items.some((slice) => slice.spec.devices?.length === 4),
      { timeoutMs: 30_000 },
    );

    await admin.create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: DRIVER_NAME },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }], config: [{ opaque: CLASS_CONFIG }] },
    });
    await admin.create(
      resourceTypes.resourceClaim,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name: CLAIM },
        spec: {
          devices: {
            requests: [
              { name: 'first', exactly: { deviceClassName: DRIVER_NAME } },
              { name: 'second', exactly: { deviceClassName: DRIVER_NAME } },
            ],
            config: [{ requests: ['second'], opaque: SECOND_CONFIG }],
          },
        },
      },
      { namespace: WORKLOADS },
    );
    await createClaimConsumer(admin, WORKLOADS, 'consumer', { resourceClaimName: CLAIM });
    await waitFor('Pod scheduled', async () => (await readPod(admin, WORKLOADS, 'consumer')).spec.nodeName === NODE, { timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    await cp.stop();
  }, 60_000);

  it('runs the API server of that release', async () => {
    const served = (await cp.adminClient.request({ method: 'GET', path: '/version' })) as { gitVersion: string };
    expect(served.gitVersion).toBe(version);
  });

  it('stores the class config for both requests as that release writes it, and the claim config for "second" alone', async () => {
    const stored = await cp.adminClient.get<StoredClaim>(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM });
    // toStrictEqual: on v1.37.2 the class entry must have no `requests` key at all, not merely an empty one.
    expect(stored.status?.allocation?.devices?.config).toStrictEqual([
      { source: 'FromClass', ...(classRequests === undefined ? {} : { requests: classRequests }), opaque: CLASS_CONFIG },
      { source: 'FromClaim', requests: ['second'], opaque: SECOND_CONFIG },
    ]);
  });

  it('prepares both VFs with the class config and lays the claim config over "second" only', async () => {
    const claim = await readResourceClaim(cp.adminClient, WORKLOADS, CLAIM);
    const vfsByDevice = new Map(DEVICES.map((device) => [device.name, device.vf]));
    const planned = planClaimPreparation({ namespace: WORKLOADS, name: CLAIM, uid: claim.metadata.uid }, claim, NODE, vfsByDevice);
    if (!planned.ok) throw planned.error;
    expect(planned.value.devices.map((device) => [device.requestNames, device.config])).toEqual([
      [['first'], { driver: 'vfio-pci', addVhostMount: false, ifName: '', netAttachDefName: 'rail-a', netAttachDefNamespace: 'infra' }],
      // A new NAD name brings its own namespace: "" stands for the Pod's, so rail-b is not looked up in infra.
      [['second'], { driver: 'vfio-pci', addVhostMount: false, ifName: 'net2', netAttachDefName: 'rail-b', netAttachDefNamespace: '' }],
    ]);
    expect(planned.value.pod.name).toBe('consumer');
  });
});
