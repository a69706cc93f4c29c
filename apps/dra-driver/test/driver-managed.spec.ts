// The whole node driver with managed attachment on (--multus-auto-attach, MULTUS mode), started by
// startDriver on a real control plane (v1.36.3 with kube-scheduler and kube-controller-manager), a fake
// sysfs served by the kernel emulator, and the kubelet's own Go code (tools/kubelet-peer) on the real
// sockets: devices published with a source template reference, two VFs allocated by the real scheduler
// to a Pod that names no networks, prepare creating one protected shadow per VF and handing both to the
// Pod's Multus selections, a restart whose repeated prepare writes nothing, and unprepare taking it all
// back. The driver authenticates as its ServiceAccount with a token bound to a driver Pod on the node,
// authorized by the chart's driver and managed-network RBAC alone.
// Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, DRIVER_NAME, annotations, labels } from '@sriov-dra/contract';
import { type KubeObject, isApiError, readPod, resourceTypes } from '@sriov-dra/k8s';
import { createReadyNode, type KubeletPeer, waitFor } from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { type Driver, startDriver } from '../src/driver.ts';
import { type DriverFlags, parseDriverFlags } from '../src/driver-flags.ts';
import { createClaimConsumer } from './claim-consumer.ts';
import {
  type DriverNode,
  NODE,
  WORKLOADS,
  NAD_NAME_ATTRIBUTE,
  createPairClaim,
  httpGet,
  metricValue,
  publishTemplate,
  startDriverNode,
} from './driver-node-fixture.ts';

const CLAIM = 'two-vfs';
const POD = 'consumer';
const STEPS = 7;
// 2 PFs on 2 PCIe roots × 4 VFs: PF 0000:3b:00.0 below pci0000:3a, PF 0000:87:00.0 below pci0000:86.
const ALL_VFS = ['0000:3b:00.2', '0000:3b:00.3', '0000:3b:00.4', '0000:3b:00.5', '0000:87:00.2', '0000:87:00.3', '0000:87:00.4', '0000:87:00.5'];
/** The two VFs kube-scheduler picks: the first two of root A, in the order of the allocation. */
const PAIR = ['0000:3b:00.2', '0000:3b:00.3'];
const ALL_DEVICES = ALL_VFS.map((pci) => pci.replace(/[:.]/g, '-'));
const SOURCE_CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}';

interface StoredSlice extends KubeObject {
  readonly spec: { readonly devices?: readonly { readonly name: string; readonly attributes?: Record<string, unknown> }[] };
}
interface StoredClaim extends KubeObject {
  readonly status?: {
    readonly allocation?: { readonly devices?: { readonly results?: readonly { request: string; device: string }[] } };
    readonly devices?: readonly Record<string, unknown>[];
  };
}
interface StoredNad extends KubeObject {
  readonly spec: { readonly config: string };
}

describe('the node driver with managed attachment on a real control plane with the kubelet peer', () => {
  let node: DriverNode;
  let flags: DriverFlags;
  let driver: Driver | undefined;
  let peer: KubeletPeer | undefined;
  let claim: { namespace: string; name: string; uid: string };
  let podUID: string;
  let sourceVersion: string;
  let finished = 0;

  const admin = () => node.cp.adminClient;
  const logger = () => pino({ level: 'info' }, pino.destination({ dest: path.join(node.dir, 'driver.log'), sync: true }));
  // A short repair period: passes keep running beside every step, so "nothing written" covers them too.
  const start = async (): Promise<Driver> =>
    startDriver(flags, { logger: logger(), healthHost: '127.0.0.1', rescanIntervalMs: 500, sliceResyncMs: 0, repairIntervalMs: 1_000 });
  const http = (route: string) => httpGet(driver?.healthPort, route);
  const metric = async (name: string): Promise<number | undefined> => metricValue((await http('/metrics')).body, name);
  const driverOf = (pci: string): string | null => node.driverOf(pci);
  const checkpointClaims = () => node.checkpointClaims<{ devices: unknown[] }>();
  const shadows = async (): Promise<StoredNad[]> =>
    (await admin().list<StoredNad>(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, labelSelector: labels.managedBy })).items;
  /** The shadow whose CNI configuration names the VF; the VF is the only thing that tells the two apart. */
  const shadowOf = (all: readonly StoredNad[], pci: string): StoredNad | undefined =>
    all.find((shadow) => (JSON.parse(shadow.spec.config) as { deviceID?: string }).deviceID === pci);
  const podAnnotations = async (): Promise<Record<string, string>> => (await readPod(admin(), WORKLOADS, POD)).metadata.annotations ?? {};
  const register = async (): Promise<void> => {
    peer = await node.register();
  };
  const expectedPrepared = () => ({
    [claim.uid]: {
      devices: ['0000-3b-00-2', '0000-3b-00-3'].map((device) => ({
        requestNames: ['vfs'],
        poolName: NODE,
        deviceName: device,
        cdiDeviceIDs: [`${DRIVER_NAME}/vf=${claim.uid}-${device}`, `${DRIVER_NAME}/vf=${podUID}`],
      })),
      error: '',
    },
  });

  beforeAll(async () => {
    node = await startDriverNode('driver-managed', ['driver-rbac.yaml', 'managed-networks-rbac.yaml']);
    const parsed = parseDriverFlags([...node.baseArgv, '--configuration-mode', 'MULTUS', '--multus-auto-attach=true'], {});
    if (!parsed.ok) throw parsed.error;
    flags = parsed.value;
    expect(flags.multusAutoAttach).toBe(true);
    driver = await start();
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    await driver?.stop();
    // A failed step leaves the driver's log and the node's files behind for diagnosis.
    await node.stop(finished !== STEPS);
  }, 120_000);

  it('publishes every VF with the source template reference its DeviceAttributes give it', async () => {
    sourceVersion = (await publishTemplate(admin(), 'rail-a', SOURCE_CONFIG)).metadata.resourceVersion;
    const published = async () =>
      (await admin().list<StoredSlice>(resourceTypes.resourceSlice, { fieldSelector: `spec.nodeName=${NODE}` })).items.flatMap(
        (slice) => slice.spec.devices ?? [],
      );
    let devices: Awaited<ReturnType<typeof published>> = [];
    const withTemplate = async () => (devices = await published()).filter((device) => device.attributes?.[NAD_NAME_ATTRIBUTE] !== undefined).length;
    await waitFor('all VFs published with their template', async () => (await withTemplate()) === 8, {
      timeoutMs: 60_000,
      describe: () => JSON.stringify(devices),
    });
    expect(devices.map((device) => device.name).sort()).toEqual(ALL_DEVICES);
    expect(devices.map((device) => device.attributes?.[NAD_NAME_ATTRIBUTE])).toEqual(Array.from({ length: 8 }, () => ({ string: 'rail-a' })));
    // With nothing checkpointed the first repair pass is already done: only the kubelet is missing.
    expect(await http('/readyz')).toEqual({ status: 503, body: 'not ready: kubelet registration' });
    finished += 1;
  }, 120_000);

  it('gets two VFs on one PCIe root allocated by kube-scheduler for a Pod that names no networks', async () => {
    // No VfConfig: the VFs keep their kernel driver (mlx5_core); managed attachment refuses vfio-pci.
    const created = await createPairClaim(admin(), CLAIM);
    claim = { namespace: WORKLOADS, name: CLAIM, uid: created.metadata.uid };
    const pod = await createClaimConsumer(admin(), WORKLOADS, POD, { resourceClaimName: CLAIM });
    podUID = pod.metadata.uid;
    expect(pod.metadata.annotations?.[annotations.networks]).toBeUndefined();
    await waitFor('Pod scheduled', async () => (await readPod(admin(), WORKLOADS, POD)).spec.nodeName === NODE, { timeoutMs: 60_000 });
    const allocated = await admin().get<StoredClaim>(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM });
    expect(allocated.status?.allocation?.devices?.results?.map((result) => [result.request, result.device])).toEqual([
      ['vfs', '0000-3b-00-2'],
      ['vfs', '0000-3b-00-3'],
    ]);
    finished += 1;
  }, 120_000);

  it('prepares through the kubelet: one protected shadow per VF, both handed to the Pod as dra0 and dra1', async () => {
    await register();
    await waitFor('ready', async () => (await http('/readyz')).status === 200, { timeoutMs: 30_000 });

    const prepared = await peer?.send({ op: 'prepare', claims: [claim] });
    expect(prepared).toMatchObject({ ok: true, result: expectedPrepared() });
    expect(ALL_VFS.map(driverOf)).toEqual(Array.from({ length: 8 }, () => 'mlx5_core'));
    expect(node.emulator.writes).toEqual([]);
    expect(fs.readdirSync(node.cdiRoot).sort()).toEqual([`${DRIVER_NAME}-vf_${claim.uid}.json`, `${DRIVER_NAME}-vf_${podUID}.json`].sort());

    const all = await shadows();
    expect(all).toHaveLength(2);
    const [first, second] = PAIR.map((pci) => shadowOf(all, pci));
    for (const pci of PAIR) {
      const shadow = shadowOf(all, pci);
      expect(shadow?.metadata.name).toMatch(/^dra-sriov-[0-9a-f]{32}$/);
      expect(shadow?.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
      expect(shadow?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: POD, uid: podUID, blockOwnerDeletion: false }]);
      expect(shadow?.metadata.labels).toMatchObject({
        [labels.managedBy]: 'sriov-dra',
        [labels.claimUID]: claim.uid,
        [labels.podUID]: podUID,
        [labels.nodeUID]: node.nodeUID,
      });
      // Multus must not take a shadow for a device-plugin NAD.
      expect(shadow?.metadata.annotations?.[annotations.resourceName]).toBeUndefined();
      expect(JSON.parse(shadow?.spec.config ?? '{}')).toEqual({ ...(JSON.parse(SOURCE_CONFIG) as object), deviceID: pci });
    }

    const values = await podAnnotations();
    expect(JSON.parse(values[annotations.networks] ?? 'null')).toEqual([
      { name: first?.metadata.name, namespace: WORKLOADS, interface: 'dra0' },
      { name: second?.metadata.name, namespace: WORKLOADS, interface: 'dra1' },
    ]);
    const registry = JSON.parse(values[annotations.managedNetworks] ?? '{"entries":[]}') as { entries: Record<string, unknown>[] };
    expect(registry.entries.map((entry) => [entry['claimUID'], entry['uid'], entry['interface']])).toEqual([
      [claim.uid, first?.metadata.uid, 'dra0'],
      [claim.uid, second?.metadata.uid, 'dra1'],
    ]);
    // The checkpoint holds what the API server holds: Ready bindings naming the same shadow objects.
    const binding = (shadow: StoredNad | undefined, name: string) => ({
      phase: 'Ready',
      interface: name,
      shadow: { name: shadow?.metadata.name, uid: shadow?.metadata.uid },
    });
    expect(checkpointClaims()[claim.uid]?.devices).toMatchObject([
      { device: '0000-3b-00-2', originalDriver: 'mlx5_core', managedBinding: binding(first, 'dra0') },
      { device: '0000-3b-00-3', originalDriver: 'mlx5_core', managedBinding: binding(second, 'dra1') },
    ]);

    await waitFor('bindings counted', async () => (await metric('sriov_dra_driver_managed_bindings{phase="Ready"}')) === 2, { timeoutMs: 10_000 });
    expect(await metric('sriov_dra_driver_managed_bindings{phase="Pending"}')).toBe(0);
    expect((await http('/metrics')).body).not.toContain('sriov_dra_driver_managed_failures_total{');
    expect(await metric('sriov_dra_driver_prepare_requests_total{result="ok"}')).toBe(1);
    finished += 1;
  }, 120_000);

  it('keeps the bindings across a restart: a repeated prepare answers the same devices and writes nothing', async () => {
    const podVersion = (await readPod(admin(), WORKLOADS, POD)).metadata.resourceVersion;
    const before = (await shadows()).map((shadow) => [shadow.metadata.name, shadow.metadata.uid, shadow.metadata.resourceVersion]).sort();
    await peer?.close();
    await driver?.stop();
    driver = undefined;
    expect(fs.existsSync(node.registrationSocket)).toBe(false);

    driver = await start();
    await register();
    // Readiness now also waits for the first repair pass over the two recorded bindings.
    await waitFor('ready after restart', async () => (await http('/readyz')).status === 200, { timeoutMs: 30_000 });
    const prepared = await peer?.send({ op: 'prepare', claims: [claim] });
    expect(prepared).toMatchObject({ ok: true, result: expectedPrepared() });
    expect((await readPod(admin(), WORKLOADS, POD)).metadata.resourceVersion).toBe(podVersion);
    expect((await shadows()).map((shadow) => [shadow.metadata.name, shadow.metadata.uid, shadow.metadata.resourceVersion]).sort()).toEqual(before);
    expect(node.emulator.writes).toEqual([]);
    expect(await metric('sriov_dra_driver_managed_bindings{phase="Ready"}')).toBe(2);
    expect((await http('/metrics')).body).not.toContain('sriov_dra_driver_managed_failures_total{');
    finished += 1;
  }, 120_000);

  it('copies what Multus reports on the Pod into the claim’s status.devices, on the chart’s own status grant', async () => {
    const all = await shadows();
    const report = PAIR.map((pci, index) => ({
      name: `${WORKLOADS}/${shadowOf(all, pci)?.metadata.name ?? ''}`,
      interface: `dra${index}`,
      ips: [`192.0.2.${index + 10}`],
      mac: `0a:58:c0:00:02:0${index}`,
    }));
    // What Multus writes after CNI ADD; the default network comes first.
    await admin().patch(
      resourceTypes.pod,
      { namespace: WORKLOADS, name: POD },
      { metadata: { annotations: { 'k8s.v1.cni.cncf.io/network-status': JSON.stringify([{ name: 'cbr0', interface: 'eth0', default: true }, ...report]) } } },
      'application/merge-patch+json',
    );
    const networkData = async () =>
      ((await admin().get<StoredClaim>(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM })).status?.devices ?? [])
        .filter((entry) => entry['driver'] === DRIVER_NAME)
        .map((entry) => [entry['device'], entry['networkData']]);
    await waitFor('the claim to report both VFs’ networks', async () => (await networkData()).every(([, data]) => data !== undefined), { timeoutMs: 20_000 });
    expect(await networkData()).toEqual([
      ['0000-3b-00-2', { interfaceName: 'dra0', ips: ['192.0.2.10/24'], hardwareAddress: '0a:58:c0:00:02:00' }],
      ['0000-3b-00-3', { interfaceName: 'dra1', ips: ['192.0.2.11/24'], hardwareAddress: '0a:58:c0:00:02:01' }],
    ]);
    finished += 1;
  }, 60_000);

  it('unprepares through the kubelet: shadows deleted, the Pod’s selections and registry removed, VFs untouched', async () => {
    const names = (await shadows()).map((shadow) => shadow.metadata.name);
    expect(names).toHaveLength(2);
    const unprepared = await peer?.send({ op: 'unprepare', claims: [claim] });
    expect(unprepared).toMatchObject({ ok: true, result: { [claim.uid]: { error: '' } } });

    const read = (name: string) => admin().get(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, name });
    const gone = (name: string) =>
      read(name).then(
        () => false,
        (error: unknown) => isApiError(error, 'NotFound'),
      );
    expect(await Promise.all(names.map(gone))).toEqual([true, true]);
    expect(await shadows()).toEqual([]);
    const values = await podAnnotations();
    expect([values[annotations.networks], values[annotations.managedNetworks]]).toEqual([undefined, undefined]);
    expect(checkpointClaims()).toEqual({});
    expect(fs.readdirSync(node.cdiRoot)).toEqual([]);
    expect(ALL_VFS.map(driverOf)).toEqual(Array.from({ length: 8 }, () => 'mlx5_core'));
    expect(node.emulator.writes).toEqual([]);
    // The source template was only ever read.
    expect((await admin().get(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, name: 'rail-a' })).metadata.resourceVersion).toBe(
      sourceVersion,
    );
    expect(await metric('sriov_dra_driver_managed_bindings{phase="Ready"}')).toBe(0);
    expect(await metric('sriov_dra_driver_unprepare_requests_total{result="ok"}')).toBe(1);
    finished += 1;
  }, 120_000);

  it('refuses a managed prepare once its Node was deleted and re-created under the same name, read from its watch', async () => {
    await admin().delete(resourceTypes.node, { name: NODE });
    const replaced = await createReadyNode(admin(), NODE);
    // The claim is still allocated and reserved for the Pod; only the node identity differs now.
    await waitFor(
      'the prepare to name the new Node',
      async () => {
        const answer = await peer?.send({ op: 'prepare', claims: [claim] });
        const error = (answer?.result as Record<string, { error: string }> | undefined)?.[claim.uid]?.error ?? '';
        return error.includes('ConsumerMismatch') && error.includes(`the Node has UID ${replaced.metadata.uid}`);
      },
      { timeoutMs: 20_000 },
    );
    expect(checkpointClaims()).toEqual({});
    expect(await shadows()).toEqual([]);
    finished += 1;
  }, 60_000);
});
