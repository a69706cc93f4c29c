// Managed attachment on a loopback control plane (v1.36, audit log on): NodePrepareResources and
// NodeUnprepareResources through the ManagedPreparer for 1 claim × 2 VFs and for a Pod of 2 claims × 4 VFs,
// and the repair passes over 1,000 healthy bindings — the first after start, which verifies every binding
// live, and the steady-state ones after it, which see them through watches. Requests are counted where
// they arrive — in the API server's audit log, by the driver's own user — never in the client. Hardware work is the real code on a
// fake sysfs tree of 1,024 VFs (8 PFs × 128); with the default VfConfig the VFs keep their kernel driver,
// as managed mode requires, so no driver is rebound. Files live under os.tmpdir().
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, contentTypes, readResourceClaim, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { generateFakeSysfs, uniformLayout } from '../../../tools/fake-sysfs/generate.ts';
import { CheckpointStore } from '../src/checkpoint/checkpoint-store.ts';
import { CdiSpecDirectory } from '../src/device/cdi-spec-directory.ts';
import { DevicePreparer } from '../src/device/device-preparer.ts';
import { DriverBinder } from '../src/device/driver-binding.ts';
import { deviceNameOf } from '../src/discovery/device-name.ts';
import { discoverInventory } from '../src/discovery/discover.ts';
import { createSysfs } from '../src/discovery/sysfs.ts';
import type { ClaimRef } from '../src/kubelet/claim-preparer.ts';
import { KeyedLocks } from '../src/kubelet/keyed-locks.ts';
import { ManagedPreparer } from '../src/managed/managed-preparer.ts';
import { NodeBindingsWatch } from '../src/managed/node-bindings-watch.ts';
import { NodeWatch } from '../src/managed/node-watch.ts';
import { RepairWorker } from '../src/managed/repair-worker.ts';
import { BENCH_NODE, percentile } from './fake-node.ts';

const NS = 'bench-workloads';
const DRIVER_USER = 'bench-dra-driver';
const VFS = 1_024;
const SMALL_RUNS = 40;
const LARGE_RUNS = 15;
const WARMUP_RUNS = 3;
const HEALTHY_PODS = 500;
const STEADY_PASSES = 5;
const NAD_NAME_ATTRIBUTE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';

interface Context {
  readonly cp: ControlPlane;
  readonly dir: string;
  readonly sysfsRoot: string;
  readonly devices: readonly string[];
  readonly pciOf: ReadonlyMap<string, string>;
  readonly vfs: Awaited<ReturnType<typeof discover>>;
}

async function discover(sysfsRoot: string) {
  const inventory = await discoverInventory(createSysfs(sysfsRoot));
  if (!inventory.ok) throw inventory.error;
  if (inventory.value.virtualFunctions.length !== VFS) throw new Error(`discovery found ${inventory.value.virtualFunctions.length} VFs, not ${VFS}`);
  return new Map(inventory.value.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
}

export async function setup(): Promise<Context> {
  const dir = mkdtempSync(join(tmpdir(), 'dra-driver-bench-managed-'));
  const sysfsRoot = join(dir, 'sys');
  generateFakeSysfs(sysfsRoot, uniformLayout({ pfs: 8, vfsPerPf: VFS / 8 }));
  const vfs = await discover(sysfsRoot);
  const cp = await startControlPlane({ audit: true });
  const admin = cp.adminClient;
  await createNamespace(admin, NS);
  await createReadyNode(admin, BENCH_NODE);
  await installCrds(admin);
  return {
    cp,
    dir,
    sysfsRoot,
    vfs,
    devices: [...vfs.keys()].sort(),
    pciOf: new Map([...vfs].map(([device, vf]) => [device, vf.pciAddress])),
  };
}

export async function teardown(context: Context): Promise<void> {
  await context.cp.stop();
  rmSync(context.dir, { recursive: true, force: true });
}

async function openNode(
  context: Context,
  name: string,
): Promise<{ preparer: ManagedPreparer; repair: RepairWorker; nodeWatch: NodeWatch; bindingsWatch: NodeBindingsWatch }> {
  const client = context.cp.clientFor(DRIVER_USER, ['system:masters']);
  const pluginDir = join(context.dir, name, 'plugin');
  const cdiDir = join(context.dir, name, 'cdi');
  mkdirSync(pluginDir, { recursive: true });
  mkdirSync(cdiDir, { recursive: true });
  const checkpoint = await CheckpointStore.open({ directory: pluginDir });
  const logger = pino({ level: 'silent' });
  const node = { name: BENCH_NODE, uid: (await context.cp.adminClient.get(resourceTypes.node, { name: BENCH_NODE })).metadata.uid };
  const devices = new DevicePreparer({
    nodeName: BENCH_NODE,
    readClaim: (namespace, claim, signal) => readResourceClaim(client, namespace, claim, signal),
    vfsByDevice: () => context.vfs,
    binder: new DriverBinder({ sysfsRoot: context.sysfsRoot }),
    cdi: new CdiSpecDirectory(cdiDir),
    checkpoint,
    sysfsRoot: context.sysfsRoot,
    logger,
  });
  const podLocks = new KeyedLocks();
  const store = { client, checkpoint, nodeName: BENCH_NODE };
  const eligible = new Map(context.devices.map((device) => [device, { attributes: { [NAD_NAME_ATTRIBUTE]: { string: 'rail-a' } } }]));
  // As the driver runs it: the node identity from a watch of its own Node, not a GET per prepare.
  const nodeWatch = new NodeWatch(client, BENCH_NODE, (error) => {
    console.error('the bench node watch failed', error);
  });
  nodeWatch.start();
  // As the driver runs it: the repair worker sees the node's Pods and shadows through watches.
  const bindingsWatch = new NodeBindingsWatch(client, node, (error) => {
    console.error('the bench Pod or shadow watch failed', error);
  });
  bindingsWatch.start();
  return {
    nodeWatch,
    bindingsWatch,
    preparer: new ManagedPreparer({
      ...store,
      node,
      driverName: DRIVER_NAME,
      devices,
      podLocks,
      eligible: () => Promise.resolve(eligible),
      pciOf: (device) => context.pciOf.get(device),
      watchedNode: (watchSignal) => nodeWatch.current(watchSignal),
    }),
    repair: new RepairWorker({
      store,
      host: devices,
      node,
      driverName: DRIVER_NAME,
      claimLocks: new KeyedLocks(),
      podLocks,
      watchedNode: (watchSignal) => nodeWatch.current(watchSignal),
      watched: bindingsWatch,
      intervalMs: 60_000,
      logger,
    }),
  };
}

/** A Pod on the bench node with `claims` direct claims of `vfs` devices each, allocated and reserved as kube-scheduler writes it. */
async function workload(admin: KubeClient, pod: string, claims: number, devices: readonly string[]): Promise<ClaimRef[]> {
  const names = Array.from({ length: claims }, (_, index) => `${pod}-${index}`);
  const created = await admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: NS },
      spec: {
        nodeName: BENCH_NODE,
        resourceClaims: names.map((name) => ({ name, resourceClaimName: name })),
        containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: names.map((name) => ({ name })) } }],
      },
    },
    { namespace: NS },
  );
  const perClaim = devices.length / claims;
  const refs: ClaimRef[] = [];
  for (const [index, name] of names.entries()) {
    const own = devices.slice(index * perClaim, (index + 1) * perClaim);
    const claim = await admin.create(
      resourceTypes.resourceClaim,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name, namespace: NS },
        spec: { devices: { requests: [{ name: 'nics', exactly: { deviceClassName: 'sriov-vf', count: own.length } }] } },
      },
      { namespace: NS },
    );
    await admin.patch(
      resourceTypes.resourceClaim,
      { namespace: NS, name, subresource: 'status' },
      {
        status: {
          allocation: { devices: { results: own.map((device) => ({ request: 'nics', driver: DRIVER_NAME, pool: BENCH_NODE, device })) } },
          reservedFor: [{ resource: 'pods', name: pod, uid: created.metadata.uid }],
        },
      },
      contentTypes.mergePatch,
    );
    refs.push({ namespace: NS, name, uid: claim.metadata.uid });
  }
  return refs;
}

/** The driver's requests the API server answered since `from`, as "verb resource[/subresource]" → count. */
async function driverRequests(cp: ControlPlane, from: number): Promise<{ total: number; next: number; byKind: Record<string, number> }> {
  const events = (await cp.auditLog?.requests()) ?? [];
  const byKind: Record<string, number> = {};
  let total = 0;
  for (const event of events.slice(from)) {
    if (event.user.username !== DRIVER_USER) continue;
    const resource = `${event.objectRef?.resource ?? ''}${event.objectRef?.subresource === undefined ? '' : `/${event.objectRef.subresource}`}`;
    const key = `${event.verb} ${resource}`;
    byKind[key] = (byKind[key] ?? 0) + 1;
    total += 1;
  }
  return { total, next: events.length, byKind: Object.fromEntries(Object.entries(byKind).sort(([a], [b]) => a.localeCompare(b))) };
}

/** The requests among `byKind` that change something. */
function writes(byKind: Record<string, number>): number {
  return Object.entries(byKind)
    .filter(([key]) => !/^(get|list|watch) /.test(key))
    .reduce((sum, [, count]) => sum + count, 0);
}

async function auditPosition(cp: ControlPlane): Promise<number> {
  return ((await cp.auditLog?.requests()) ?? []).length;
}

const signal = new AbortController().signal;

/**
 * Prepares and then unprepares `runs` Pods of `claims` claims × `vfsPerClaim` VFs, all claims of a Pod at
 * once as one kubelet call carries them; times each Pod's prepare and unprepare, and counts the requests
 * of one measured Pod's prepare and unprepare in the audit log (every measured Pod is checked to match it).
 */
async function preparePods(context: Context, label: string, runs: number, claims: number, vfsPerClaim: number) {
  const admin = context.cp.adminClient;
  const { preparer, nodeWatch, bindingsWatch } = await openNode(context, label);
  const prepares: number[] = [];
  const unprepares: number[] = [];
  let prepareRequests: Record<string, number> | undefined;
  let unprepareRequests: Record<string, number> | undefined;
  for (let run = 0; run < WARMUP_RUNS + runs; run += 1) {
    const perPod = claims * vfsPerClaim;
    const devices = context.devices.slice((run * perPod) % (VFS - perPod), ((run * perPod) % (VFS - perPod)) + perPod);
    const refs = await workload(admin, `${label}-${run}`, claims, devices);
    const before = await auditPosition(context.cp);
    let started = performance.now();
    await Promise.all(refs.map((ref) => preparer.prepare(ref, signal)));
    const prepareMs = performance.now() - started;
    const prepared = await driverRequests(context.cp, before);
    started = performance.now();
    await Promise.all(refs.map((ref) => preparer.unprepare(ref, signal)));
    const unprepareMs = performance.now() - started;
    const released = await driverRequests(context.cp, prepared.next);
    if (run < WARMUP_RUNS) continue;
    prepares.push(prepareMs);
    unprepares.push(unprepareMs);
    if (prepareRequests !== undefined && JSON.stringify(prepareRequests) !== JSON.stringify(prepared.byKind)) {
      throw new Error(`prepare ${run} sent ${JSON.stringify(prepared.byKind)}, an earlier one ${JSON.stringify(prepareRequests)}`);
    }
    prepareRequests = prepared.byKind;
    unprepareRequests = released.byKind;
  }
  await bindingsWatch.stop();
  await nodeWatch.stop();
  prepares.sort((a, b) => a - b);
  unprepares.sort((a, b) => a - b);
  const sum = (counts: Record<string, number> | undefined): number => Object.values(counts ?? {}).reduce((a, b) => a + b, 0);
  console.log(`${label}: requests per Pod prepare ${JSON.stringify(prepareRequests)}; per Pod unprepare ${JSON.stringify(unprepareRequests)}`);
  return {
    runs: prepares.length,
    prepareP50Ms: percentile(prepares, 50),
    prepareP99Ms: percentile(prepares, 99),
    unprepareP50Ms: percentile(unprepares, 50),
    unprepareP99Ms: percentile(unprepares, 99),
    requestsPerPrepare: sum(prepareRequests),
    requestsPerUnprepare: sum(unprepareRequests),
  };
}

export const benchmarks = [
  {
    name: `managed prepare + unprepare, 1 claim × 2 VFs, one shared source NAD, ${SMALL_RUNS} Pods after ${WARMUP_RUNS} warm-up; requests from the audit log`,
    once: async (context: Context) => {
      await context.cp.adminClient.create(
        resourceTypes.networkAttachmentDefinition,
        {
          apiVersion: 'k8s.cni.cncf.io/v1',
          kind: 'NetworkAttachmentDefinition',
          metadata: { name: 'rail-a', namespace: NS },
          spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}' },
        },
        { namespace: NS },
      );
      return preparePods(context, 'small', SMALL_RUNS, 1, 2);
    },
  },
  {
    name: `managed prepare + unprepare, 2 claims × 4 VFs of one Pod prepared at once, ${LARGE_RUNS} Pods after ${WARMUP_RUNS} warm-up`,
    once: (context: Context) => preparePods(context, 'large', LARGE_RUNS, 2, 4),
  },
  {
    name: `repair passes over ${HEALTHY_PODS * 2} healthy bindings (${HEALTHY_PODS} Pods × 1 claim × 2 VFs): the first after start, then ${STEADY_PASSES} steady-state ones; requests from the audit log`,
    once: async (context: Context) => {
      const admin = context.cp.adminClient;
      const { preparer, repair, nodeWatch, bindingsWatch } = await openNode(context, 'healthy');
      for (let pod = 0; pod < HEALTHY_PODS; pod += 1) {
        const refs = await workload(admin, `healthy-${pod}`, 1, context.devices.slice(pod * 2, pod * 2 + 2));
        for (const ref of refs) await preparer.prepare(ref, signal);
      }
      // The watches list the node's Pods and shadows when the driver starts, before its first pass.
      await bindingsWatch.synced();
      const passes: { ms: number; requests: Awaited<ReturnType<typeof driverRequests>> }[] = [];
      for (let pass = 0; pass <= STEADY_PASSES; pass += 1) {
        const before = await auditPosition(context.cp);
        const started = performance.now();
        const result = await repair.pass();
        const ms = performance.now() - started;
        if (result.healthy !== HEALTHY_PODS || result.repaired + result.released > 0) throw new Error(`pass ${pass} found ${JSON.stringify(result)}`);
        passes.push({ ms, requests: await driverRequests(context.cp, before) });
      }
      await bindingsWatch.stop();
      await nodeWatch.stop();
      const [first, ...steady] = passes;
      const samples = steady.map((pass) => pass.ms).sort((a, b) => a - b);
      const steadyRequests = steady.map((pass) => pass.requests.total);
      console.log(
        `repair: requests of the first pass ${JSON.stringify(first?.requests.byKind)}; of each steady-state pass ${JSON.stringify(steady.map((pass) => pass.requests.byKind))}`,
      );
      return {
        bindings: HEALTHY_PODS * 2,
        firstPassMs: first?.ms ?? Number.NaN,
        firstPassRequests: first?.requests.total ?? Number.NaN,
        steadyPassP50Ms: percentile(samples, 50),
        steadyPassMaxMs: samples.at(-1) ?? Number.NaN,
        steadyPassMaxRequests: Math.max(...steadyRequests),
        steadyPassWrites: steady.reduce((sum, pass) => sum + writes(pass.requests.byKind), 0),
      };
    },
  },
];
