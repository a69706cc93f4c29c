// The whole node driver, started by startDriver, on a real control plane (v1.36.3 with kube-scheduler and
// kube-controller-manager), a fake sysfs served by the kernel emulator, and the kubelet's own Go code
// (tools/kubelet-peer) on the real sockets: ResourceSlices from discovery and policy, allocation by the
// real scheduler, prepare binding both VFs to vfio-pci with CDI specs, checkpoint and claim status,
// a restart that keeps the state, unprepare restoring the drivers, a PF link going down reaching the
// health stream, and /readyz and /metrics over HTTP. The driver authenticates as its ServiceAccount with a
// token bound to a driver Pod on the node, authorized by the chart's RBAC alone.
// Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_API_VERSION, DRIVER_NAME, isSriovDraError } from '@sriov-dra/contract';
import { type KubeObject, readPod, resourceTypes } from '@sriov-dra/k8s';
import { type KubeletPeer, type PeerAnswer, waitFor } from '@sriov-dra/k8s/testing';
import { pino } from 'pino';
import { type Driver, startDriver } from '../src/driver.ts';
import { type DriverFlags, parseDriverFlags } from '../src/driver-flags.ts';
import { createClaimConsumer } from './claim-consumer.ts';
import { type DriverNode, NAMESPACE, NODE, WORKLOADS, createPairClaim, httpGet, metricValue, startDriverNode } from './driver-node-fixture.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const CLAIM = 'two-vfs';
// 2 PFs on 2 PCIe roots × 4 VFs: PF 0000:3b:00.0 (enp59s0f0) below pci0000:3a, PF 0000:87:00.0 (enp135s0f0)
// below pci0000:86; each PF's VFs follow it at function 2.
const ROOT_A_VFS = ['0000:3b:00.2', '0000:3b:00.3', '0000:3b:00.4', '0000:3b:00.5'];
const ROOT_B_VFS = ['0000:87:00.2', '0000:87:00.3', '0000:87:00.4', '0000:87:00.5'];
const ALL_DEVICES = [...ROOT_A_VFS, ...ROOT_B_VFS].map((pci) => pci.replace(/[:.]/g, '-'));

interface StoredClaim extends KubeObject {
  readonly status?: {
    readonly allocation?: { readonly devices?: { readonly results?: readonly { request: string; pool: string; device: string }[] } };
    readonly devices?: readonly Record<string, unknown>[];
  };
}

interface StoredSlice extends KubeObject {
  readonly spec: { readonly devices?: readonly { readonly name: string }[] };
}

describe('the node driver on a real control plane with the kubelet peer', () => {
  let node: DriverNode;
  let flags: DriverFlags;
  let driver: Driver | undefined;
  let peer: KubeletPeer | undefined;
  let claim: { namespace: string; name: string; uid: string };
  let podUID: string;

  const admin = () => node.cp.adminClient;
  const logger = () => pino({ level: 'info' }, pino.destination({ dest: path.join(node.dir, 'driver.log'), sync: true }));
  const start = async (): Promise<Driver> => startDriver(flags, { logger: logger(), healthHost: '127.0.0.1', rescanIntervalMs: 500, sliceResyncMs: 0 });
  const running = (): Driver => {
    if (driver === undefined) throw new Error('the driver is not running');
    return driver;
  };
  const connected = (): KubeletPeer => {
    if (peer === undefined) throw new Error('no kubelet peer');
    return peer;
  };
  const http = (route: string) => httpGet(running().healthPort, route);
  const metric = async (name: string): Promise<number | undefined> => metricValue((await http('/metrics')).body, name);
  const driverOf = (pci: string): string | null => node.driverOf(pci);
  const checkpointClaims = () => node.checkpointClaims<{ devices: { device: string; originalDriver: string | null; preparedDriver: string | null }[] }>();
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
    node = await startDriverNode('driver-node', ['driver-rbac.yaml']);
    const parsed = parseDriverFlags([...node.baseArgv], {});
    if (!parsed.ok) throw parsed.error;
    flags = parsed.value;
    driver = await start();
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    await driver?.stop();
    await node.stop(false);
  }, 120_000);

  it('publishes every VF a policy selects and is not ready before the kubelet registers it', async () => {
    await admin().create(
      resourceTypes.sriovResourcePolicy,
      { apiVersion: DRIVER_API_VERSION, kind: 'SriovResourcePolicy', metadata: { name: 'all-vfs' }, spec: { configs: [{}] } },
      { namespace: NAMESPACE },
    );
    const names = async (): Promise<string[]> =>
      (await admin().list<StoredSlice>(resourceTypes.resourceSlice, { fieldSelector: `spec.nodeName=${NODE}` })).items.flatMap((slice) =>
        (slice.spec.devices ?? []).map((device) => device.name),
      );
    await waitFor('all VFs published', async () => (await names()).length === 8, { timeoutMs: 60_000 });
    expect((await names()).sort()).toEqual(ALL_DEVICES);
    await waitFor('published devices counted', async () => (await metric('sriov_dra_driver_published_devices')) === 8, { timeoutMs: 30_000 });
    expect(await metric('sriov_dra_driver_withheld_devices')).toBe(0);
    expect(await http('/healthz')).toEqual({ status: 200, body: 'ok' });
    expect(await http('/readyz')).toEqual({ status: 503, body: 'not ready: kubelet registration' });
  }, 120_000);

  it('gets two VFs on one PCIe root allocated by kube-scheduler', async () => {
    const created = await createPairClaim(admin(), CLAIM, [
      { requests: ['vfs'], opaque: { driver: DRIVER_NAME, parameters: { apiVersion: DRIVER_API_VERSION, kind: 'VfConfig', driver: 'vfio-pci' } } },
    ]);
    claim = { namespace: WORKLOADS, name: CLAIM, uid: created.metadata.uid };
    const pod = await createClaimConsumer(admin(), WORKLOADS, 'consumer', { resourceClaimName: CLAIM });
    podUID = pod.metadata.uid;
    await waitFor('Pod scheduled', async () => (await readPod(admin(), WORKLOADS, 'consumer')).spec.nodeName === NODE, { timeoutMs: 60_000 });
    const allocated = await admin().get<StoredClaim>(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM });
    expect(allocated.status?.allocation?.devices?.results?.map((result) => [result.request, result.pool, result.device])).toEqual([
      ['vfs', NODE, '0000-3b-00-2'],
      ['vfs', NODE, '0000-3b-00-3'],
    ]);
  }, 120_000);

  it('prepares through the kubelet: both VFs on vfio-pci, CDI specs, checkpoint and claim status written', async () => {
    await register();
    await waitFor('ready', async () => (await http('/readyz')).status === 200, { timeoutMs: 30_000 });
    expect(await http('/readyz')).toEqual({ status: 200, body: 'ok' });

    const prepared = await connected().send({ op: 'prepare', claims: [claim] });
    expect(prepared).toMatchObject({ ok: true, result: expectedPrepared() });
    expect(ROOT_A_VFS.map(driverOf)).toEqual(['vfio-pci', 'vfio-pci', 'mlx5_core', 'mlx5_core']);
    expect(ROOT_B_VFS.map(driverOf)).toEqual(['mlx5_core', 'mlx5_core', 'mlx5_core', 'mlx5_core']);
    expect(fs.readdirSync(node.cdiRoot).sort()).toEqual([`${DRIVER_NAME}-vf_${claim.uid}.json`, `${DRIVER_NAME}-vf_${podUID}.json`].sort());
    expect(checkpointClaims()[claim.uid]?.devices.map((device) => [device.device, device.originalDriver, device.preparedDriver])).toEqual([
      ['0000-3b-00-2', 'mlx5_core', 'vfio-pci'],
      ['0000-3b-00-3', 'mlx5_core', 'vfio-pci'],
    ]);
    const stored = await admin().get<StoredClaim>(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM });
    // The API server stores the entry's conditions list (no omitempty) as null.
    expect(stored.status?.devices).toEqual([
      { driver: DRIVER_NAME, pool: NODE, device: '0000-3b-00-2', conditions: null },
      { driver: DRIVER_NAME, pool: NODE, device: '0000-3b-00-3', conditions: null },
    ]);

    expect(await metric('sriov_dra_driver_prepare_requests_total{result="ok"}')).toBe(1);
    expect(await metric('sriov_dra_driver_prepare_requests_total{result="error"}')).toBe(undefined);
    expect(await metric('sriov_dra_driver_prepare_duration_seconds_count{result="ok"}')).toBe(1);
    expect(await metric('sriov_dra_driver_checkpoint_write_duration_seconds_count{result="ok"}')).toBe(2);
    expect(await metric('sriov_dra_driver_claim_status_update_failures_total')).toBe(0);
    expect(await metric('sriov_dra_driver_last_successful_publish_timestamp_seconds')).toBeGreaterThan(0);
  }, 120_000);

  it('keeps the prepared claim across a restart: a repeated prepare answers the same devices without rebinding', async () => {
    await connected().close();
    await running().stop();
    driver = undefined;
    expect(fs.existsSync(node.registrationSocket)).toBe(false);
    const writesBefore = node.emulator.writes.length;
    const claimVersion = (await admin().get(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM })).metadata.resourceVersion;

    // What a process killed mid-write leaves: temporary files of the checkpoint and of a spec, beside
    // another driver's in the shared CDI directory, which is not this driver's to remove.
    const pluginDirectory = path.join(node.pluginsDir, DRIVER_NAME);
    const abandoned = [
      path.join(pluginDirectory, '.checkpoint.json.0123456789ab.tmp'),
      path.join(node.cdiRoot, `.${DRIVER_NAME}-vf_${claim.uid}.json.0123456789ab.tmp`),
    ];
    const foreign = path.join(node.cdiRoot, '.gpu.example.com-gpu_x.json.0123456789ab.tmp');
    for (const file of [...abandoned, foreign]) fs.writeFileSync(file, '{"cut":');

    driver = await start();
    expect([...abandoned, foreign].map((file) => fs.existsSync(file))).toEqual([false, false, true]);
    fs.rmSync(foreign);
    // The kubelet saw the registration socket go and come back: a new registration, as the kubelet's
    // plugin watcher does after a driver restart.
    await register();
    const prepared = await connected().send({ op: 'prepare', claims: [claim] });
    expect(prepared).toMatchObject({ ok: true, result: expectedPrepared() });
    expect(node.emulator.writes.length).toBe(writesBefore);
    // status.devices already holds these devices: nothing is written to the claim.
    expect((await admin().get(resourceTypes.resourceClaim, { namespace: WORKLOADS, name: CLAIM })).metadata.resourceVersion).toBe(claimVersion);
    expect(ROOT_A_VFS.map(driverOf)).toEqual(['vfio-pci', 'vfio-pci', 'mlx5_core', 'mlx5_core']);
    expect(await metric('sriov_dra_driver_prepare_requests_total{result="ok"}')).toBe(1);
  }, 120_000);

  it('unprepares through the kubelet: original drivers back, CDI specs and checkpoint record gone', async () => {
    const unprepared = await connected().send({ op: 'unprepare', claims: [claim] });
    expect(unprepared).toMatchObject({ ok: true, result: { [claim.uid]: { error: '' } } });
    expect([...ROOT_A_VFS, ...ROOT_B_VFS].map(driverOf)).toEqual(Array.from({ length: 8 }, () => 'mlx5_core'));
    expect(fs.readdirSync(node.cdiRoot)).toEqual([]);
    expect(checkpointClaims()).toEqual({});
    expect(await metric('sriov_dra_driver_unprepare_requests_total{result="ok"}')).toBe(1);
  }, 120_000);

  it('reports the VFs of a PF whose link goes down as Unhealthy on the kubelet health stream', async () => {
    fs.writeFileSync(path.join(node.sysfsRoot, 'class/net/enp59s0f0/operstate'), 'down\n');
    let last: PeerAnswer | undefined;
    const summary = (answer: PeerAnswer | undefined) =>
      ((answer?.result ?? []) as { deviceName: string; health: string; message: string }[]).map((device) => [device.deviceName, device.health, device.message]);
    // The stream carries the complete list on every change and heartbeat; read until the change arrives.
    await waitFor(
      'link-down health',
      async () => {
        last = await connected().send({ op: 'health', timeoutMs: 10_000 });
        return summary(last).some(([, health]) => health === 'UNHEALTHY');
      },
      { timeoutMs: 60_000, describe: () => JSON.stringify(last) },
    );
    const down = 'PhysicalFunctionLinkDown: PF 0000:3b:00.0 link enp59s0f0 is down';
    expect(summary(last)).toEqual([
      ['0000-3b-00-2', 'UNHEALTHY', down],
      ['0000-3b-00-3', 'UNHEALTHY', down],
      ['0000-3b-00-4', 'UNHEALTHY', down],
      ['0000-3b-00-5', 'UNHEALTHY', down],
      ['0000-87-00-2', 'HEALTHY', ''],
      ['0000-87-00-3', 'HEALTHY', ''],
      ['0000-87-00-4', 'HEALTHY', ''],
      ['0000-87-00-5', 'HEALTHY', ''],
    ]);
  }, 120_000);

  it('runs as a process from main.ts: serves /healthz, and exits 0 after SIGTERM with its sockets removed', async () => {
    await connected().close();
    await running().stop();
    driver = undefined;
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...node.baseArgv], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const port = (): number | undefined =>
      output
        .split('\n')
        .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string; port?: number }] : []))
        .find((entry) => entry.msg === 'health endpoint serving /healthz, /readyz and /metrics')?.port;
    // Ready to be stopped once it serves both the health endpoint and the kubelet sockets.
    await waitFor('health endpoint of the process', () => Promise.resolve(port() !== undefined && fs.existsSync(node.registrationSocket)), {
      timeoutMs: 60_000,
      alive: () => child.exitCode === null,
      describe: () => output,
    });
    expect(await (await fetch(`http://127.0.0.1:${String(port())}/healthz`)).text()).toBe('ok');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(fs.existsSync(node.registrationSocket)).toBe(false);
    expect(fs.existsSync(path.join(node.pluginsDir, DRIVER_NAME, 'dra.sock'))).toBe(false);
  }, 120_000);

  it('refuses to start on a corrupt checkpoint and leaves the file as it was', async () => {
    const file = path.join(node.pluginsDir, DRIVER_NAME, 'checkpoint.json');
    fs.writeFileSync(file, '{"version":1,"claims":');
    const error: unknown = await start().then(
      () => new Error('the driver started'),
      (failure: unknown) => failure,
    );
    expect(isSriovDraError(error, 'CheckpointCorrupt')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"version":1,"claims":');
    expect(fs.existsSync(node.registrationSocket)).toBe(false);
  }, 60_000);
});
