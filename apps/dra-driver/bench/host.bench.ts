// Host-side driver work on a node of 256 simulated VFs (tools/fake-sysfs tree, bind/unbind served by the
// kernel emulator in this process): discovery, NodePrepareResources/NodeUnprepareResources of manual-mode
// claims (VfConfig driver vfio-pci: each prepare rebinds 2 VFs, each unprepare restores them), and one
// checkpoint mutation with 256 devices recorded. The prepare workload's checkpoint holds only the claim in
// flight. Files live under os.tmpdir(): fsync costs are real only where that is a disk.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type KernelEmulator, startKernelEmulator } from '../../../tools/fake-sysfs/kernel-emulator.ts';
import { encodeCheckpoint } from '../src/checkpoint/checkpoint-codec.ts';
import { CheckpointStore } from '../src/checkpoint/checkpoint-store.ts';
import { CdiSpecDirectory } from '../src/device/cdi-spec-directory.ts';
import type { ReservedClaim } from '../src/device/claim-plan.ts';
import { DevicePreparer } from '../src/device/device-preparer.ts';
import { DriverBinder } from '../src/device/driver-binding.ts';
import { deviceNameOf } from '../src/discovery/device-name.ts';
import type { VirtualFunction } from '../src/discovery/virtual-function.ts';
import { writeFileAtomic } from '@sriov-dra/durable-files';
import { BENCH_NODE, NODE_VFS, discoverNode, generateNode, percentile } from './fake-node.ts';
import { manualClaim, pairOf, preparedRecord } from './manual-claims.ts';

const PREPARE_RUNS = 200;
/** Runs before the measured ones, so JIT compilation and first-touch file creation are not in the figures. */
const WARMUP_RUNS = 10;
const DISCOVERY_RUNS = 50;
/** The checkpoint of a full node: every VF prepared, two per claim. */
const CHECKPOINT_CLAIMS = NODE_VFS / 2;

interface Host {
  readonly dir: string;
  readonly sysfsRoot: string;
  readonly emulator: KernelEmulator;
  readonly vfs: readonly VirtualFunction[];
}

export async function setup(): Promise<Host> {
  const dir = mkdtempSync(join(tmpdir(), 'dra-driver-bench-'));
  const sysfsRoot = join(dir, 'sys');
  generateNode(sysfsRoot);
  const emulator = startKernelEmulator({ root: sysfsRoot, devRoot: join(dir, 'dev') });
  return { dir, sysfsRoot, emulator, vfs: await discoverNode(sysfsRoot) };
}

export async function teardown(host: Host): Promise<void> {
  await host.emulator.stop();
  rmSync(host.dir, { recursive: true, force: true });
}

function freshDir(host: Host, name: string): string {
  const dir = join(host.dir, name);
  mkdirSync(dir);
  return dir;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

function sortAscending(samples: number[]): void {
  samples.sort((a, b) => a - b);
}

export const benchmarks = [
  {
    name: `discoverInventory of ${NODE_VFS} VFs on 4 PFs (fake sysfs), ${DISCOVERY_RUNS} sequential`,
    once: async (host: Host) => {
      const samples: number[] = [];
      for (let i = 0; i < DISCOVERY_RUNS; i += 1) samples.push(await timed(() => discoverNode(host.sysfsRoot)));
      sortAscending(samples);
      return { vfs: NODE_VFS, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
    },
  },
  {
    name:
      `DevicePreparer prepare + unprepare, manual mode (VfConfig driver vfio-pci), 1 claim × 2 VFs, ${PREPARE_RUNS} sequential ` +
      `after ${WARMUP_RUNS} warm-up; the claim read is an in-memory function (the API read is measured in libs/k8s)`,
    once: async (host: Host) => {
      const claims = new Map<string, ReservedClaim>();
      const refs = Array.from({ length: WARMUP_RUNS + PREPARE_RUNS }, (_unused, n) => {
        const { ref, claim } = manualClaim(n, host.vfs);
        claims.set(`${ref.namespace}/${ref.name}`, claim);
        return ref;
      });
      const binder = new DriverBinder({ sysfsRoot: host.sysfsRoot });
      const preparer = new DevicePreparer({
        nodeName: BENCH_NODE,
        readClaim: (namespace, name) => {
          const claim = claims.get(`${namespace}/${name}`);
          return claim === undefined ? Promise.reject(new Error(`no claim ${namespace}/${name}`)) : Promise.resolve(claim);
        },
        vfsByDevice: () => new Map(host.vfs.map((vf) => [deviceNameOf(vf.pciAddress), vf])),
        binder,
        cdi: new CdiSpecDirectory(freshDir(host, 'cdi')),
        checkpoint: await CheckpointStore.open({ directory: freshDir(host, 'plugin') }),
        sysfsRoot: host.sysfsRoot,
        logger: pino({ level: 'silent' }),
      });
      const signal = new AbortController().signal;
      const prepares: number[] = [];
      const unprepares: number[] = [];
      for (const [n, ref] of refs.entries()) {
        const prepareMs = await timed(() => preparer.prepare(ref, signal));
        // Checked outside the timing: a figure for a prepare that bound nothing would be meaningless.
        const pair = pairOf(n, host.vfs).map((vf) => vf.pciAddress);
        const bound = await Promise.all(pair.map((pci) => binder.currentDriver(pci)));
        if (bound.some((driver) => driver !== 'vfio-pci')) throw new Error(`prepare ${n} left the VFs bound to ${bound.join(', ')}`);
        const unprepareMs = await timed(() => preparer.unprepare(ref, signal));
        const restored = await Promise.all(pair.map((pci) => binder.currentDriver(pci)));
        if (restored.some((driver) => driver !== 'mlx5_core')) throw new Error(`unprepare ${n} left the VFs bound to ${restored.join(', ')}`);
        if (n < WARMUP_RUNS) continue;
        prepares.push(prepareMs);
        unprepares.push(unprepareMs);
      }
      sortAscending(prepares);
      sortAscending(unprepares);
      return {
        runs: prepares.length,
        prepareP50Ms: percentile(prepares, 50),
        prepareP99Ms: percentile(prepares, 99),
        unprepareP50Ms: percentile(unprepares, 50),
        unprepareP99Ms: percentile(unprepares, 99),
      };
    },
  },
  {
    name: `checkpoint mutation with ${NODE_VFS} devices recorded (${CHECKPOINT_CLAIMS} claims × 2 VFs): validate, encode, checksum, atomic durable write`,
    once: async (host: Host) => {
      const store = await CheckpointStore.open({ directory: freshDir(host, 'checkpoint') });
      for (let n = 0; n < CHECKPOINT_CLAIMS; n += 1) await store.upsertClaim(preparedRecord(n, host.vfs));
      const text = encodeCheckpoint(new Map(store.claims().map((record) => [record.claimUID, record])));
      const copy = join(freshDir(host, 'raw-write'), 'checkpoint.json');
      const claimUID = manualClaim(0, host.vfs).ref.uid;
      const samples: number[] = [];
      const raw: number[] = [];
      // Alternating the two workloads spreads the machine's background load evenly over both.
      for (let i = 0; i < WARMUP_RUNS + PREPARE_RUNS; i += 1) {
        const driver = i % 2 === 0 ? 'mlx5_core' : 'vfio-pci';
        const mutationMs = await timed(() =>
          store.updateClaim(claimUID, (record) => ({ ...record, devices: record.devices.map((device) => ({ ...device, preparedDriver: driver })) })),
        );
        const rawMs = await timed(() => writeFileAtomic(copy, text));
        if (i < WARMUP_RUNS) continue;
        samples.push(mutationMs);
        raw.push(rawMs);
      }
      sortAscending(samples);
      sortAscending(raw);
      return {
        devices: NODE_VFS,
        fileKiB: Buffer.byteLength(text) / 1024,
        writes: samples.length,
        p50Ms: percentile(samples, 50),
        p99Ms: percentile(samples, 99),
        // Same-run baseline: the durable write of the same bytes alone (temp file, fsync, rename, fsync dir).
        atomicWriteP50Ms: percentile(raw, 50),
        atomicWriteP99Ms: percentile(raw, 99),
      };
    },
  },
];
