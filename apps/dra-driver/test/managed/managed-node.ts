// One node of managed attachment for tests: a real control plane, a fake sysfs with one ConnectX PF of
// eight VFs served by the kernel emulator, a checkpoint and CDI directory, and ManagedPreparers that
// authenticate as the driver with exactly the chart's ClusterRoles. `open` builds a fresh preparer over
// the same state directory each time: a real restart loses every in-memory state the process had.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DRIVER_NAME, annotations, labels } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, isApiError, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  DRIVER_CHART_DIR,
  createNamespace,
  createReadyNode,
  installCrds,
  renderChartTemplate,
  startControlPlane,
} from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { type KernelEmulator, startKernelEmulator } from '../../../../tools/fake-sysfs/kernel-emulator.ts';
import type { ClaimRecord } from '../../src/checkpoint/checkpoint-record.ts';
import { CheckpointStore } from '../../src/checkpoint/checkpoint-store.ts';
import { CdiSpecDirectory } from '../../src/device/cdi-spec-directory.ts';
import { DevicePreparer } from '../../src/device/device-preparer.ts';
import { DriverBinder } from '../../src/device/driver-binding.ts';
import { discoverInventory } from '../../src/discovery/discover.ts';
import { deviceNameOf } from '../../src/discovery/device-name.ts';
import { createSysfs } from '../../src/discovery/sysfs.ts';
import { ManagedPreparer } from '../../src/managed/managed-preparer.ts';

export const NS = 'ai-workloads';
export const NODE = 'worker-1';
export const DRIVER_USER = 'sriov-dra-driver';
const NAD_NAME_ATTRIBUTE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
/** The generator's first PF (ConnectX-6, mlx5_core VFs) is 0000:3b:00.0; its VFs start at function 2. */
export const VFS = Array.from({ length: 8 }, (_, index) => `0000:3b:00.${index + 2}`);
export const DEVICES = VFS.map(deviceNameOf);

export const sourceConfig = (name: string, subnet: string): string =>
  `{"cniVersion":"1.0.0","name":"${name}","type":"sriov","vlan":0,"ipam":{"type":"host-local","subnet":"${subnet}"}}`;

export interface OpenOptions {
  /** The API identity; the driver's own by default. */
  readonly client?: KubeClient;
  /** The durable checkpoint write, to fail it at will; the real atomic write by default. */
  readonly write?: (file: string, data: string) => Promise<void>;
  /** The source template each device's published attributes name; rail-a for all by default. */
  readonly sourceOf?: (device: string) => string;
}

export interface ManagedNode {
  readonly cp: ControlPlane;
  readonly admin: KubeClient;
  /** Authenticated as the driver, authorized by the chart's ClusterRoles alone. */
  readonly driver: KubeClient;
  readonly node: { readonly name: string; readonly uid: string };
  readonly pluginDir: string;
  readonly cdiRoot: string;
  open(options?: OpenOptions): Promise<ManagedPreparer>;
  /** The kernel driver bound to a VF now, read from sysfs. */
  driverOf(pci: string): string | null;
  cdiFiles(): string[];
  /** The checkpoint file's records, read from disk. */
  records(): Promise<ClaimRecord[]>;
  stop(): Promise<void>;
}

export async function startManagedNode(): Promise<ManagedNode> {
  const cp = await startControlPlane({ controllerManager: true, audit: true });
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  const nodeObject = await createReadyNode(admin, NODE);
  const node = { name: NODE, uid: nodeObject.metadata.uid };
  for (const template of ['driver-rbac.yaml', 'managed-networks-rbac.yaml']) {
    for (const object of renderChartTemplate(DRIVER_CHART_DIR, template, { namespace: 'dra-driver-sriov' })) {
      if (object['kind'] === 'ClusterRole') await admin.create(resourceTypes.clusterRole, object);
      if (object['kind'] === 'ClusterRoleBinding') {
        await admin.create(resourceTypes.clusterRoleBinding, {
          ...object,
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: DRIVER_USER }],
        });
      }
    }
  }
  const driver = cp.clientFor(DRIVER_USER);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'managed-node-'));
  const sysfsRoot = path.join(dir, 'sys');
  generateFakeSysfs(sysfsRoot, uniformLayout({ pfs: 1, vfsPerPf: VFS.length }));
  const emulator: KernelEmulator = startKernelEmulator({ root: sysfsRoot, devRoot: path.join(dir, 'dev') });
  const inventory = await discoverInventory(createSysfs(sysfsRoot));
  if (!inventory.ok) throw inventory.error;
  const vfs = new Map(inventory.value.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
  const pluginDir = path.join(dir, 'plugin');
  const cdiRoot = path.join(dir, 'cdi');
  fs.mkdirSync(pluginDir);
  fs.mkdirSync(cdiRoot);

  const open = async (options: OpenOptions = {}): Promise<ManagedPreparer> => {
    const client = options.client ?? driver;
    const checkpoint = await CheckpointStore.open({ directory: pluginDir, ...(options.write === undefined ? {} : { write: options.write }) });
    const logger = pino({ level: 'silent' });
    const devices = new DevicePreparer({
      nodeName: NODE,
      readClaim: (namespace, name, signal) => readResourceClaim(client, namespace, name, signal),
      vfsByDevice: () => vfs,
      binder: new DriverBinder({ sysfsRoot }),
      cdi: new CdiSpecDirectory(cdiRoot),
      checkpoint,
      sysfsRoot,
      logger,
    });
    const sourceOf = options.sourceOf ?? (() => 'rail-a');
    return new ManagedPreparer({
      client,
      checkpoint,
      nodeName: NODE,
      node,
      driverName: DRIVER_NAME,
      devices,
      eligible: () => new Map(DEVICES.map((device) => [device, { attributes: { [NAD_NAME_ATTRIBUTE]: { string: sourceOf(device) } } }])),
      pciOf: (device) => vfs.get(device)?.pciAddress,
    });
  };

  return {
    cp,
    admin,
    driver,
    node,
    pluginDir,
    cdiRoot,
    open,
    driverOf: (pci) => {
      const link = path.join(sysfsRoot, 'bus/pci/devices', pci, 'driver');
      return fs.existsSync(link) ? path.basename(fs.readlinkSync(link)) : null;
    },
    cdiFiles: () => fs.readdirSync(cdiRoot).sort(),
    records: async () => (await CheckpointStore.open({ directory: pluginDir })).claims(),
    stop: async () => {
      await emulator.stop();
      await cp.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A source template in the workloads namespace. */
export function createSource(admin: KubeClient, name: string, subnet: string): Promise<KubeObject> {
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: NS }, spec: { config: sourceConfig(name, subnet) } },
    { namespace: NS },
  );
}

export interface Workload {
  readonly pod: KubeObject;
  /** By claim name. */
  readonly claims: ReadonlyMap<string, KubeObject>;
  /** The kubelet's name for each claim: namespace, name, UID. */
  ref(claim: string): { namespace: string; name: string; uid: string };
}

/**
 * A Pod bound to the node using one direct claim per entry of `claims` (Pod alias = claim name), each
 * allocated the given devices of this driver and reserved for the Pod, as kube-scheduler writes it.
 * Claims that already exist are re-reserved for the new Pod (claim reuse).
 */
export async function createWorkload(
  admin: KubeClient,
  podName: string,
  claims: Readonly<Record<string, readonly string[]>>,
  podAnnotations: Readonly<Record<string, string>> = {},
): Promise<Workload> {
  const pod = await admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace: NS, annotations: podAnnotations },
      spec: {
        nodeName: NODE,
        resourceClaims: Object.keys(claims).map((name) => ({ name, resourceClaimName: name })),
        containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: Object.keys(claims).map((name) => ({ name })) } }],
      },
    },
    { namespace: NS },
  );
  const stored = new Map<string, KubeObject>();
  for (const [name, devices] of Object.entries(claims)) {
    try {
      await admin.create(
        resourceTypes.resourceClaim,
        {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaim',
          metadata: { name, namespace: NS },
          spec: { devices: { requests: [{ name: 'nics', exactly: { deviceClassName: 'sriov-vf', count: devices.length } }] } },
        },
        { namespace: NS },
      );
    } catch (error) {
      if (!isApiError(error, 'AlreadyExists')) throw error;
    }
    stored.set(
      name,
      await admin.patch(
        resourceTypes.resourceClaim,
        { namespace: NS, name, subresource: 'status' },
        {
          status: {
            allocation: { devices: { results: devices.map((device) => ({ request: 'nics', driver: DRIVER_NAME, pool: NODE, device })) } },
            reservedFor: [{ resource: 'pods', name: podName, uid: pod.metadata.uid }],
          },
        },
        contentTypes.mergePatch,
      ),
    );
  }
  return {
    pod,
    claims: stored,
    ref: (claim) => ({ namespace: NS, name: claim, uid: stored.get(claim)?.metadata.uid ?? '' }),
  };
}

/** The shadows that exist in the workloads namespace, by name. */
export async function listShadows(admin: KubeClient): Promise<Map<string, KubeObject & { spec: { config: string } }>> {
  const list = await admin.list<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, {
    namespace: NS,
    labelSelector: labels.managedBy,
  });
  return new Map(list.items.map((item) => [item.metadata.name, item]));
}

/** The Pod's networks annotation, decoded, and its registry. */
export async function podSelections(
  admin: KubeClient,
  name: string,
): Promise<{ networks: unknown; registry: { entries: Record<string, unknown>[] } | undefined; resourceVersion: string }> {
  const pod = await admin.get(resourceTypes.pod, { namespace: NS, name });
  const values = pod.metadata.annotations ?? {};
  const networks = values[annotations.networks];
  const registry = values[annotations.managedNetworks];
  return {
    networks: networks === undefined ? undefined : JSON.parse(networks),
    registry: registry === undefined ? undefined : (JSON.parse(registry) as { entries: Record<string, unknown>[] }),
    resourceVersion: pod.metadata.resourceVersion,
  };
}
