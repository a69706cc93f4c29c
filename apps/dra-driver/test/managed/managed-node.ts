// One node of managed attachment for tests: a real control plane, a fake sysfs with one ConnectX PF of
// eight VFs served by the kernel emulator, a checkpoint and CDI directory, and ManagedPreparers that
// authenticate as the driver with exactly the chart's ClusterRoles. `open` builds a fresh preparer over
// the same state directory, so a fault can be injected into one attempt; `restart` starts the driver as a
// process of its own over the same directories, called by the kubelet's own code: the real restart.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { DRIVER_NAME, type DeviceAttributeValue, annotations, labels } from '@sriov-dra/contract';
import { writeFileAtomic } from '@sriov-dra/durable-files';
import { type ApiRequest, KubeClient, type KubeObject, contentTypes, isApiError, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  createNamespace,
  createReadyNode,
  createRoleBinding,
  DRIVER_CHART_DIR,
  installCrds,
  KubeletPeer,
  renderChartTemplate,
  type RoleBindingBody,
  startControlPlane,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { type FakeSysfsSpec, generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { type KernelEmulator, startKernelEmulator } from '../../../../tools/fake-sysfs/kernel-emulator.ts';
import type { ClaimRecord } from '../../src/checkpoint/checkpoint-record.ts';
import { CheckpointStore } from '../../src/checkpoint/checkpoint-store.ts';
import { CdiSpecDirectory } from '../../src/device/cdi-spec-directory.ts';
import { DevicePreparer } from '../../src/device/device-preparer.ts';
import { DriverBinder } from '../../src/device/driver-binding.ts';
import { discoverInventory } from '../../src/discovery/discover.ts';
import { deviceNameOf } from '../../src/discovery/device-name.ts';
import { createSysfs } from '../../src/discovery/sysfs.ts';
import { KeyedLocks } from '../../src/kubelet/keyed-locks.ts';
import { ManagedPreparer } from '../../src/managed/managed-preparer.ts';
import { NodeBindingsWatch } from '../../src/managed/node-bindings-watch.ts';
import { NodeWatch } from '../../src/managed/node-watch.ts';
import { RepairWorker } from '../../src/managed/repair-worker.ts';
import { MANAGED_RELEASE_VALUES, driverIdentity } from '../driver-identity.ts';
import { publishEveryVf } from '../driver-node-fixture.ts';
import { launchDriver } from '../driver-process.ts';

export const NS = 'ai-workloads';
export const NODE = 'worker-1';
export const DRIVER_USER = 'sriov-dra-driver';
/** Where a restarted driver process finds its policy, as the chart's namespace would hold it. */
const DRIVER_NAMESPACE = 'dra-driver-sriov';
const RBAC_TEMPLATES = ['driver-rbac.yaml', 'managed-networks-rbac.yaml'];
export const NAD_NAME_ATTRIBUTE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
/** The generator's first PF (ConnectX-6, mlx5_core VFs) is 0000:3b:00.0; its VFs follow from function 2, on to device 01. */
export const VFS = ['0000:3b:00.2', '0000:3b:00.3', '0000:3b:00.4', '0000:3b:00.5', '0000:3b:00.6', '0000:3b:00.7', '0000:3b:01.0', '0000:3b:01.1'];
export const DEVICES = VFS.map(deviceNameOf);

export const sourceConfig = (name: string, subnet: string): string =>
  `{"cniVersion":"1.0.0","name":"${name}","type":"sriov","vlan":0,"ipam":{"type":"host-local","subnet":"${subnet}"}}`;

export interface OpenOptions {
  /** The API identity; the driver's own by default. */
  readonly client?: KubeClient;
  /** Fails the checkpoint write whose next state this returns true for; that write leaves the file as it was. */
  readonly failWrite?: (next: Readonly<Record<string, ClaimRecord>>) => boolean;
  /** The source template each device's published attributes name; rail-a for all by default. */
  readonly sourceOf?: (device: string) => string;
  /** The Node UID the driver believes it serves; the real one by default. */
  readonly nodeUID?: string;
  /** Each device's published attributes, replacing the source reference altogether; undefined: not published. */
  readonly attributesOf?: (device: string) => Readonly<Record<string, DeviceAttributeValue>> | undefined;
  /** The Pod locks the preparer and repair worker share, for a test to hold one while a call waits for it. */
  readonly podLocks?: KeyedLocks;
  /** Whether `repairWorker` returns only once the worker's watches have listed (default true). */
  readonly listed?: boolean;
}

export const INJECTED_WRITE_FAILURE = 'injected checkpoint write failure';

export interface NodeState {
  readonly bindings: readonly { claim: string; pod: string; phase: string | undefined; shadow: string | undefined; shadowUID: string | undefined }[];
  readonly shadows: readonly { name: string; uid: string; finalizers: readonly string[]; deleting: boolean }[];
  readonly selections: { networks: unknown; registry: readonly Record<string, unknown>[] } | 'no Pod';
  readonly cdi: readonly string[];
  /** The kernel driver of each VF, in VFS order. */
  readonly drivers: readonly (string | null)[];
}

/** The driver as a process of its own, and the kubelet's calls to it. */
export interface DriverProcess {
  /** NodePrepareResources for one claim through the kubelet's DRA client: '' or the error the driver answered. */
  prepare(ref: ClaimCall): Promise<string>;
  unprepare(ref: ClaimCall): Promise<string>;
  /** SIGTERM, then the kubelet side; another driver may open the state afterwards. */
  stop(): Promise<void>;
}

export interface ClaimCall {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface ManagedNode {
  readonly cp: ControlPlane;
  readonly admin: KubeClient;
  /** Authenticated as the driver, authorized by the chart's ClusterRoles alone. */
  readonly driver: KubeClient;
  readonly node: { readonly name: string; readonly uid: string };
  /** The kubelet plugins directory; the driver's state is in its DRIVER_NAME subdirectory, `pluginDir`. */
  readonly pluginsDir: string;
  readonly pluginDir: string;
  readonly cdiRoot: string;
  /** The fake sysfs tree the kernel emulator serves. */
  readonly sysfsRoot: string;
  open(options?: OpenOptions): Promise<ManagedPreparer>;
  /**
   * Starts the driver process (main.ts, --multus-auto-attach) on this node's directories with the chart's
   * permissions, registered with the kubelet's code. Its startup repair pass runs before it serves. One
   * at a time, and no `open` while it runs: two drivers must never share the state.
   */
  restart(): Promise<DriverProcess>;
  /**
   * The repair worker of a freshly started driver (not started: tests run its passes), its watches of the
   * Node, the node's Pods and shadows running; those of the worker made before it are stopped.
   */
  repairWorker(options?: OpenOptions): Promise<RepairWorker>;
  /** Every VF's device name, in PCI order; DEVICES are the first eight. */
  readonly devices: readonly string[];
  /** The kernel driver bound to a VF now, read from sysfs. */
  driverOf(pci: string): string | null;
  /** Binds a VF to a driver, or unbinds it (null), as an administrator or another tool would. */
  setDriver(pci: string, driver: string | null): Promise<void>;
  /** Each VF's kernel driver as the node started, in VFS order: what every release must leave. */
  readonly initialDrivers: readonly (string | null)[];
  cdiFiles(): string[];
  /** The checkpoint file's records, read from disk. */
  records(): Promise<ClaimRecord[]>;
  /** Everything a failure could leak, in one comparable value. */
  state(pod: string): Promise<NodeState>;
  /** The driver user's requests the API server answered while `work` ran, counted by "verb resource" (audit log). */
  driverRequests(work: () => Promise<unknown>): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * `hardware` replaces the fake sysfs (another link type, VFs on other drivers, drivers loaded for later
 * binds, more VFs); its first eight VFs must be those of VFS.
 */
export async function startManagedNode(hardware: FakeSysfsSpec = uniformLayout({ pfs: 1, vfsPerPf: VFS.length })): Promise<ManagedNode> {
  const cp = await startControlPlane({ controllerManager: true, audit: true });
  const { auditLog } = cp;
  if (auditLog === undefined) throw new Error('the control plane runs without an audit log');
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  const nodeObject = await createReadyNode(admin, NODE);
  const node = { name: NODE, uid: nodeObject.metadata.uid };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'managed-node-'));
  // The restarted process runs as the DaemonSet's ServiceAccount; the in-process preparers as a user
  // bound to the same ClusterRoles, so the audit log tells their requests apart.
  await createNamespace(admin, DRIVER_NAMESPACE);
  const kubeconfig = await driverIdentity(cp, path.join(dir, 'driver.kubeconfig'), { namespace: DRIVER_NAMESPACE, node: NODE }, RBAC_TEMPLATES);
  for (const template of RBAC_TEMPLATES) {
    for (const object of renderChartTemplate(DRIVER_CHART_DIR, template, { namespace: DRIVER_NAMESPACE, values: MANAGED_RELEASE_VALUES })) {
      if (object['kind'] !== 'ClusterRoleBinding') continue;
      const { metadata, roleRef } = object as { metadata: { name: string }; roleRef: RoleBindingBody['roleRef'] };
      await createRoleBinding(admin, {
        metadata: { name: `${metadata.name}-user` },
        roleRef,
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: DRIVER_USER }],
      });
    }
  }
  await publishEveryVf(admin, DRIVER_NAMESPACE, 'rail-a');
  const driver = cp.clientFor(DRIVER_USER);

  const sysfsRoot = path.join(dir, 'sys');
  generateFakeSysfs(sysfsRoot, hardware);
  const emulator: KernelEmulator = startKernelEmulator({ root: sysfsRoot, devRoot: path.join(dir, 'dev') });
  const inventory = await discoverInventory(createSysfs(sysfsRoot));
  if (!inventory.ok) throw inventory.error;
  const vfs = new Map(inventory.value.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
  const discovered = inventory.value.virtualFunctions.map((vf) => vf.pciAddress).sort();
  if (JSON.stringify(discovered.slice(0, VFS.length)) !== JSON.stringify(VFS))
    throw new Error(`the fake sysfs has VFs ${discovered.join(', ')}, not ${VFS.join(', ')} first`);
  const allDevices = discovered.map(deviceNameOf);
  // Laid out as the kubelet's plugins directory is, so `sriov-dra inspect --plugins-dir` finds the checkpoint.
  const pluginsDir = path.join(dir, 'plugins');
  const pluginDir = path.join(pluginsDir, DRIVER_NAME);
  const cdiRoot = path.join(dir, 'cdi');
  const registrarDir = path.join(dir, 'plugins_registry');
  fs.mkdirSync(pluginDir, { recursive: true });
  fs.mkdirSync(cdiRoot);
  let running: ChildProcess | undefined;
  let starts = 0;
  /** The watches of the latest repair worker: one driver's at a time, as on a node. */
  let watching: { stop(): Promise<void> }[] = [];
  const stopWatches = async (): Promise<void> => {
    for (const watch of watching.splice(0)) await watch.stop();
  };

  /** Resolves once the driver user's watches of its Node, its Pods and its shadows, made after request `received`, reached the API server. */
  const watchesOpened = (received: number): Promise<void> =>
    waitFor(
      "the repair worker's three watches opened",
      async () => {
        const watched = new Set(
          (await auditLog.requests())
            .slice(received)
            .filter((event) => event.user.username === DRIVER_USER && event.verb === 'watch')
            .map((event) => event.objectRef?.resource),
        );
        return ['nodes', 'pods', 'network-attachment-definitions'].every((resource) => watched.has(resource));
      },
      { timeoutMs: 30_000 },
    );

  const start = async (options: OpenOptions): Promise<{ preparer: ManagedPreparer; repair: () => Promise<RepairWorker> }> => {
    if (running !== undefined) throw new Error('the driver process is running: stop it before opening its state');
    const client = options.client ?? driver;
    const { failWrite } = options;
    const checkpoint = await CheckpointStore.open({
      directory: pluginDir,
      write: async (file, data) => {
        if (failWrite?.((JSON.parse(data) as { claims: Record<string, ClaimRecord> }).claims) === true) throw new Error(INJECTED_WRITE_FAILURE);
        await writeFileAtomic(file, data);
      },
    });
    // Silent unless MANAGED_NODE_LOG names a pino level (e.g. warn), to see why a step failed.
    const logger = pino({ level: process.env['MANAGED_NODE_LOG'] ?? 'silent' });
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
    const attributesOf = options.attributesOf ?? ((device: string) => ({ [NAD_NAME_ATTRIBUTE]: { string: sourceOf(device) } }));
    const podLocks = options.podLocks ?? new KeyedLocks();
    const repair = async (): Promise<RepairWorker> => {
      await stopWatches();
      const received = (await auditLog.requests()).length;
      const served = options.nodeUID === undefined ? node : { ...node, uid: options.nodeUID };
      const nodeWatch = new NodeWatch(client, NODE, () => undefined);
      const watched = new NodeBindingsWatch(client, served, () => undefined);
      nodeWatch.start();
      watched.start();
      watching = [nodeWatch, watched];
      if (options.listed !== false) {
        await Promise.all([nodeWatch.current(), watched.synced()]);
        // An informer counts as listed when its LIST is answered; its WATCH follows a moment later. Counted
        // requests start only once the API server has all three, so a late one is not taken for the pass's.
        if (options.client === undefined) await watchesOpened(received);
      }
      return new RepairWorker({
        store: { client, checkpoint, nodeName: NODE },
        host: devices,
        node: served,
        driverName: DRIVER_NAME,
        claimLocks: new KeyedLocks(),
        podLocks,
        watchedNode: (signal) => nodeWatch.current(signal),
        watched,
        intervalMs: 60_000,
        logger,
      });
    };
    const preparer = new ManagedPreparer({
      client,
      checkpoint,
      nodeName: NODE,
      node,
      driverName: DRIVER_NAME,
      devices,
      podLocks,
      eligible: () =>
        Promise.resolve(
          new Map(
            allDevices.flatMap((device) => {
              const attributes = attributesOf(device);
              return attributes === undefined ? [] : [[device, { attributes }] as const];
            }),
          ),
        ),
      pciOf: (device) => vfs.get(device)?.pciAddress,
    });
    return { preparer, repair };
  };

  const driverOf = (pci: string): string | null => {
    const link = path.join(sysfsRoot, 'bus/pci/devices', pci, 'driver');
    return fs.existsSync(link) ? path.basename(fs.readlinkSync(link)) : null;
  };
  return {
    cp,
    admin,
    driver,
    node,
    pluginsDir,
    pluginDir,
    cdiRoot,
    sysfsRoot,
    open: async (options = {}) => (await start(options)).preparer,
    restart: async () => {
      if (running !== undefined) throw new Error('a driver process is running already');
      starts += 1;
      const argv = [
        ...['--node-name', NODE, '--kubeconfig', kubeconfig, '--namespace', DRIVER_NAMESPACE, '--sysfs-root', sysfsRoot, '--cdi-root', cdiRoot],
        ...['--kubelet-plugins-directory-path', pluginsDir, '--kubelet-registrar-directory-path', registrarDir, '--healthcheck-port=-1'],
        ...['--kube-api-qps', '100', '--kube-api-burst', '200', '--configuration-mode', 'MULTUS', '--multus-auto-attach=true'],
      ];
      const child = await launchDriver(argv, path.join(dir, `driver-${String(starts)}.log`));
      running = child;
      const peer = await KubeletPeer.start();
      const registered = await peer.send({ op: 'register', socket: path.join(registrarDir, `${DRIVER_NAME}-reg.sock`) });
      if (!registered.ok) throw new Error(`the kubelet could not register the driver: ${registered.error ?? ''}`);
      const call = async (op: 'prepare' | 'unprepare', ref: ClaimCall): Promise<string> => {
        const answer = await peer.send({ op, claims: [ref] });
        if (!answer.ok) throw new Error(`the kubelet's ${op} call failed: ${answer.error ?? ''}`);
        return (answer.result as Record<string, { error: string }>)[ref.uid]?.error ?? 'no result for the claim';
      };
      return {
        prepare: (ref) => call('prepare', ref),
        unprepare: (ref) => call('unprepare', ref),
        stop: async () => {
          await terminateChild(child);
          await peer.close();
          running = undefined;
        },
      };
    },
    repairWorker: async (options = {}) => (await start(options)).repair(),
    devices: allDevices,
    driverOf,
    setDriver: async (pci, driver) => {
      await new DriverBinder({ sysfsRoot }).restoreDriver(pci, driver);
    },
    initialDrivers: VFS.map(driverOf),
    cdiFiles: () => fs.readdirSync(cdiRoot).sort(),
    records: async () => (await CheckpointStore.open({ directory: pluginDir })).claims(),
    driverRequests: async (work) => {
      const before = (await auditLog.requests()).length;
      await work();
      const counts: Record<string, number> = {};
      for (const event of (await auditLog.requests()).slice(before)) {
        if (event.user.username !== DRIVER_USER) continue;
        const key = `${event.verb} ${event.objectRef?.resource ?? ''}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
    },
    state: async (pod) => {
      const records = (await CheckpointStore.open({ directory: pluginDir })).claims();
      const shadows = [...(await listShadows(admin)).values()].map((shadow) => ({
        name: shadow.metadata.name,
        uid: shadow.metadata.uid,
        finalizers: shadow.metadata.finalizers ?? [],
        deleting: shadow.metadata.deletionTimestamp !== undefined,
      }));
      let selections: NodeState['selections'] = 'no Pod';
      try {
        const { networks, registry } = await podSelections(admin, pod);
        selections = { networks, registry: registry?.entries ?? [] };
      } catch (error) {
        if (!isApiError(error, 'NotFound')) throw error;
      }
      return {
        bindings: records.flatMap((record) =>
          record.devices.map((device) => ({
            claim: record.claimName,
            pod: record.pod.uid,
            phase: device.managedBinding?.phase,
            shadow: device.managedBinding?.shadow.name,
            shadowUID: device.managedBinding?.shadow.uid,
          })),
        ),
        shadows: shadows.sort((a, b) => a.name.localeCompare(b.name)),
        selections,
        cdi: fs.readdirSync(cdiRoot).sort(),
        drivers: VFS.map(driverOf),
      };
    },
    stop: async () => {
      await stopWatches();
      if (running !== undefined) await terminateChild(running);
      await emulator.stop();
      await cp.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The driver's own identity with something happening at one exact moment: right before the driver's first
 * request that `when` matches, `act` runs — another writer changing the object on the real API server, or
 * the network starting to hold the server's answers back. What the driver then gets is the API server's
 * own answer, or its own deadline.
 */
export class ActingClient extends KubeClient {
  #act: (() => unknown) | undefined;
  readonly #when: (request: ApiRequest) => boolean;
  readonly #settled: (() => void) | undefined;
  constructor(
    node: Pick<ManagedNode, 'cp' | 'driver'>,
    when: (request: ApiRequest) => boolean,
    act: () => unknown,
    via: { readonly server?: string; readonly requestTimeoutMs?: number; readonly settled?: () => void } = {},
  ) {
    const config = via.server === undefined ? node.driver.config : KubeClient.fromKubeConfig(node.cp.kubeconfigFor(DRIVER_USER, { server: via.server })).config;
    super(config, { qps: 1_000, burst: 1_000, ...(via.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: via.requestTimeoutMs }) });
    this.#when = when;
    this.#act = act;
    this.#settled = via.settled;
  }
  /** Whether `act` has run. */
  get acted(): boolean {
    return this.#act === undefined;
  }
  override async request(request: ApiRequest): Promise<unknown> {
    const act = this.#act;
    if (act === undefined || !this.#when(request)) return super.request(request);
    this.#act = undefined;
    await act();
    try {
      return await super.request(request);
    } finally {
      this.#settled?.();
    }
  }
}

/** Locks that count the calls made to them, so a test knows when the driver is waiting for a lock the test holds. */
export class WatchedLocks extends KeyedLocks {
  readonly #waiters: { readonly calls: number; readonly resolve: () => void }[] = [];
  calls = 0;
  override run<T>(key: string, work: (queued: boolean) => Promise<T>): Promise<T> {
    this.calls += 1;
    for (const waiter of this.#waiters.filter((entry) => entry.calls <= this.calls)) waiter.resolve();
    return super.run(key, work);
  }
  reached(calls: number): Promise<void> {
    return calls <= this.calls ? Promise.resolve() : new Promise((resolve) => this.#waiters.push({ calls, resolve }));
  }
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
  /** status.allocation.devices.config of every claim: the opaque VfConfigs the scheduler copied from the classes and claim. */
  allocationConfig: readonly Record<string, unknown>[] = [],
  /** More of the Pod's spec (hostNetwork, …). */
  podSpec: Readonly<Record<string, unknown>> = {},
): Promise<Workload> {
  const pod = await admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace: NS, annotations: podAnnotations },
      spec: {
        ...podSpec,
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
            allocation: {
              devices: {
                results: devices.map((device) => ({ request: 'nics', driver: DRIVER_NAME, pool: NODE, device })),
                ...(allocationConfig.length === 0 ? {} : { config: allocationConfig }),
              },
            },
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

/** A claim's VfConfig as its allocation carries it, for the claim's one request. */
export const vfConfig = (parameters: Record<string, unknown>): Record<string, unknown> => ({
  source: 'FromClaim',
  requests: ['nics'],
  opaque: { driver: DRIVER_NAME, parameters: { apiVersion: `${DRIVER_NAME}/v1alpha1`, kind: 'VfConfig', ...parameters } },
});

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

/**
 * Starts one managed node for the calling spec file (or describe block) — source template rail-a
 * (192.0.2.0/24) included, on `hardware` if given — hands it to `ready` before the first test, and stops
 * it after the last.
 */
export function useManagedNode(ready: (node: ManagedNode) => void, hardware?: FakeSysfsSpec): void {
  let started: ManagedNode | undefined;
  beforeAll(async () => {
    started = await startManagedNode(hardware);
    await createSource(started.admin, 'rail-a', '192.0.2.0/24');
    ready(started);
  }, 180_000);
  afterAll(async () => {
    await started?.stop();
  });
}
