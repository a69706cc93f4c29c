import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { isSriovDraError, shadowNameFor } from '@sriov-dra/contract';
import { pino } from 'pino';
import { type FakeSysfsSpec, generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { type KernelEmulator, startKernelEmulator } from '../../../../tools/fake-sysfs/kernel-emulator.ts';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { discoverInventory } from '../discovery/discover.ts';
import { deviceNameOf } from '../discovery/device-name.ts';
import { createSysfs } from '../discovery/sysfs.ts';
import type { VirtualFunction } from '../discovery/virtual-function.ts';
import { CdiSpecDirectory } from './cdi-spec-directory.ts';
import type { ReservedClaim } from './claim-plan.ts';
import { DevicePreparer } from './device-preparer.ts';
import { DriverBinder } from './driver-binding.ts';
import type { PlannedBinding } from '../managed/planned-binding.ts';

const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';
const CLAIM_A = { namespace: 'ai', name: 'rail-pair', uid: '0b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e01' };
const CLAIM_B = { namespace: 'ai', name: 'storage', uid: '0b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8e02' };
const POD = { uid: '5f0c7a52-1111-4c2e-8d3b-7a6b5c4d3e2f', name: 'trainer-0' };
// The generator's first PF (ConnectX-6, mlx5_core VFs) is 0000:3b:00.0; its VFs start at 0000:3b:00.2.
const VF0 = '0000:3b:00.2';
const VF1 = '0000:3b:00.3';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function driverConfig(driver: string) {
  return { source: 'FromClaim', requests: ['vf'], opaque: { driver: DRIVER, parameters: { apiVersion: `${DRIVER}/v1alpha1`, kind: 'VfConfig', driver } } };
}

function claimOf(
  ref: typeof CLAIM_A,
  devices: readonly string[],
  config: readonly unknown[] = [],
  reservedFor = [{ resource: 'pods', name: POD.name, uid: POD.uid }],
): ReservedClaim {
  return {
    metadata: { namespace: ref.namespace, name: ref.name, uid: ref.uid },
    status: {
      allocation: { devices: { results: devices.map((device) => ({ request: 'vf', driver: DRIVER, pool: 'worker-1', device })), config: config as never } },
      reservedFor,
    },
  };
}

async function setup(claims: ReadonlyMap<string, ReservedClaim>, hardware: FakeSysfsSpec = uniformLayout({ pfs: 1, vfsPerPf: 2 })) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'device-preparer-'));
  const sysfsRoot = path.join(dir, 'sys');
  generateFakeSysfs(sysfsRoot, hardware);
  const emulator: KernelEmulator = startKernelEmulator({ root: sysfsRoot, devRoot: path.join(dir, 'dev') });
  cleanups.push(async () => {
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const inventory = await discoverInventory(createSysfs(sysfsRoot));
  if (!inventory.ok) throw inventory.error;
  const vfs = new Map<string, VirtualFunction>(inventory.value.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
  const pluginDir = path.join(dir, 'plugin');
  fs.mkdirSync(pluginDir);
  const cdiRoot = path.join(dir, 'cdi');
  fs.mkdirSync(cdiRoot);
  const open = async () =>
    new DevicePreparer({
      nodeName: 'worker-1',
      readClaim: (namespace, name) => {
        const claim = claims.get(`${namespace}/${name}`);
        return claim === undefined ? Promise.reject(new Error(`no claim ${namespace}/${name}`)) : Promise.resolve(claim);
      },
      vfsByDevice: () => vfs,
      binder: new DriverBinder({ sysfsRoot }),
      cdi: new CdiSpecDirectory(cdiRoot),
      checkpoint: await CheckpointStore.open({ directory: pluginDir }),
      sysfsRoot,
      logger: pino({ level: 'silent' }),
    });
  const driverOf = (pci: string): string | null => {
    const link = path.join(sysfsRoot, 'bus/pci/devices', pci, 'driver');
    return fs.existsSync(link) ? path.basename(fs.readlinkSync(link)) : null;
  };
  const netdevsOf = (pci: string): string[] => {
    const dir = path.join(sysfsRoot, 'bus/pci/devices', pci, 'net');
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };
  const cdiFiles = () => fs.readdirSync(cdiRoot).sort();
  const checkpoint = () =>
    JSON.parse(fs.readFileSync(path.join(pluginDir, 'checkpoint.json'), 'utf8')) as {
      claims: Record<string, { devices: { originalDriver: string; preparedDriver: string }[] }>;
    };
  return { open, driverOf, netdevsOf, cdiFiles, checkpoint, cdiRoot };
}

const signal = new AbortController().signal;

// Fake-sysfs trees and the kernel emulator do real file and pipe I/O; on a loaded machine setup alone takes seconds.
jest.setTimeout(30_000);
describe('DevicePreparer', () => {
  it('binds the VFs a VfConfig asks for, writes CDI specs and the checkpoint, and undoes it all on unprepare', async () => {
    const claims = new Map([[`ai/rail-pair`, claimOf(CLAIM_A, ['0000-3b-00-2', '0000-3b-00-3'], [driverConfig('vfio-pci')])]]);
    const host = await setup(claims);
    const preparer = await host.open();

    const devices = await preparer.prepare(CLAIM_A, signal);
    expect(devices).toEqual([
      {
        requestNames: ['vf'],
        poolName: 'worker-1',
        deviceName: '0000-3b-00-2',
        cdiDeviceIds: [`${DRIVER}/vf=${CLAIM_A.uid}-0000-3b-00-2`, `${DRIVER}/vf=${POD.uid}`],
      },
      {
        requestNames: ['vf'],
        poolName: 'worker-1',
        deviceName: '0000-3b-00-3',
        cdiDeviceIds: [`${DRIVER}/vf=${CLAIM_A.uid}-0000-3b-00-3`, `${DRIVER}/vf=${POD.uid}`],
      },
    ]);
    expect([host.driverOf(VF0), host.driverOf(VF1)]).toEqual(['vfio-pci', 'vfio-pci']);
    expect(host.cdiFiles()).toEqual([`${DRIVER}-vf_${CLAIM_A.uid}.json`, `${DRIVER}-vf_${POD.uid}.json`]);
    expect(host.checkpoint().claims[CLAIM_A.uid]?.devices.map((device) => [device.originalDriver, device.preparedDriver])).toEqual([
      ['mlx5_core', 'vfio-pci'],
      ['mlx5_core', 'vfio-pci'],
    ]);

    await preparer.unprepare(CLAIM_A, signal);
    expect([host.driverOf(VF0), host.driverOf(VF1)]).toEqual(['mlx5_core', 'mlx5_core']);
    expect(host.cdiFiles()).toEqual([]);
    expect(host.checkpoint().claims).toEqual({});
    // Repeated calls converge: the kubelet retries both.
    await preparer.unprepare(CLAIM_A, signal);
  });

  it('answers a repeated prepare after a restart from the checkpoint, without rebinding', async () => {
    const claims = new Map([[`ai/rail-pair`, claimOf(CLAIM_A, ['0000-3b-00-2'], [driverConfig('vfio-pci')])]]);
    const host = await setup(claims);
    const first = await (await host.open()).prepare(CLAIM_A, signal);
    const restarted = await host.open();
    expect(await restarted.prepare(CLAIM_A, signal)).toEqual(first);
    expect(host.checkpoint().claims[CLAIM_A.uid]?.devices.map((device) => device.originalDriver)).toEqual(['mlx5_core']);
    await restarted.unprepare(CLAIM_A, signal);
    expect(host.driverOf(VF0)).toBe('mlx5_core');
  });

  it("keeps the Pod-wide CDI spec until the Pod's last claim is released", async () => {
    const claims = new Map([
      [`ai/rail-pair`, claimOf(CLAIM_A, ['0000-3b-00-2'])],
      [`ai/storage`, claimOf(CLAIM_B, ['0000-3b-00-3'])],
    ]);
    const host = await setup(claims);
    const preparer = await host.open();
    await preparer.prepare(CLAIM_A, signal);
    await preparer.prepare(CLAIM_B, signal);
    const podSpec = path.join(host.cdiRoot, `${DRIVER}-vf_${POD.uid}.json`);
    expect(fs.readFileSync(podSpec, 'utf8')).toContain(`SRIOVNETWORK_PCI_ADDRESSES=${VF0},${VF1}`);
    await preparer.unprepare(CLAIM_A, signal);
    expect(fs.readFileSync(podSpec, 'utf8')).toContain(`SRIOVNETWORK_PCI_ADDRESSES=${VF1}"`);
    expect(Object.keys(host.checkpoint().claims)).toEqual([CLAIM_B.uid]);
    await preparer.unprepare(CLAIM_B, signal);
    expect(fs.existsSync(podSpec)).toBe(false);
    // No VfConfig driver: the binding was kept throughout.
    expect([host.driverOf(VF0), host.driverOf(VF1)]).toEqual(['mlx5_core', 'mlx5_core']);
  });

  it.each([
    [
      'a claim shared by two Pods',
      claimOf(
        CLAIM_A,
        ['0000-3b-00-2'],
        [],
        [
          { resource: 'pods', name: 'a', uid: POD.uid },
          { resource: 'pods', name: 'b', uid: '5f0c7a52-1111-4c2e-8d3b-7a6b5c4d3e30' },
        ],
      ),
      'InvalidClaimReservation',
    ],
    ['a device discovery does not know', claimOf(CLAIM_A, ['0000-3b-00-7']), 'DeviceNotEligible'],
    [
      'a malformed VfConfig',
      claimOf(
        CLAIM_A,
        ['0000-3b-00-2'],
        [{ source: 'FromClaim', opaque: { driver: DRIVER, parameters: { apiVersion: `${DRIVER}/v1alpha1`, kind: 'VfConfig', drivr: 'vfio-pci' } } }],
      ),
      'InvalidVfConfig',
    ],
    [
      'a claim with another UID under the name',
      { ...claimOf(CLAIM_A, ['0000-3b-00-2']), metadata: { ...CLAIM_A, uid: '0b8e5a34-6f3c-4a7e-9f43-2c1d7a9b8eff' } },
      'ObjectReplaced',
    ],
  ])('refuses %s before touching the host', async (_case, claim, code) => {
    const host = await setup(new Map([[`ai/rail-pair`, claim]]));
    const preparer = await host.open();
    const refused = await preparer.prepare(CLAIM_A, signal).catch((error: unknown) => error);
    expect(isSriovDraError(refused) && refused.code).toBe(code);
    expect(host.cdiFiles()).toEqual([]);
    expect(fs.existsSync(path.join(host.cdiRoot, '..', 'plugin', 'checkpoint.json'))).toBe(false);
    expect(host.driverOf(VF0)).toBe('mlx5_core');
  });
});

describe('DevicePreparer in managed mode', () => {
  const CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.2"}';
  const planned = (device: string, pciAddress: string, digit: string): PlannedBinding => ({
    bindingVersion: 1,
    attachmentID: digit.repeat(64),
    podUID: POD.uid,
    podNamespace: 'ai',
    podName: POD.name,
    claimUID: CLAIM_A.uid,
    claimNamespace: 'ai',
    claimName: CLAIM_A.name,
    nodeName: 'worker-1',
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    driver: DRIVER,
    pool: 'worker-1',
    device,
    requestNames: ['vf'],
    pciAddress,
    interface: 'net1',
    source: { namespace: 'ai', name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' },
    shadow: { namespace: 'ai', name: shadowNameFor(digit.repeat(64)) },
    renderedConfig: CONFIG,
    configSHA256: createHash('sha256').update(CONFIG).digest('hex'),
  });

  it('records each planned binding as Pending, shadow UID empty, in the first checkpoint record, from the claim the plan was made of', async () => {
    // No claim to read: the managed path hands over the claim it read live, and it is not read again.
    const host = await setup(new Map());
    const binding = planned('0000-3b-00-2', VF0, 'a');
    await (await host.open()).prepare(CLAIM_A, signal, { claim: claimOf(CLAIM_A, ['0000-3b-00-2']), bindings: new Map([['0000-3b-00-2', binding]]) });
    const recorded = (host.checkpoint().claims[CLAIM_A.uid]?.devices as { managedBinding?: unknown }[] | undefined)?.map((device) => device.managedBinding);
    expect(recorded).toEqual([{ ...binding, phase: 'Pending', shadow: { ...binding.shadow, uid: '' } }]);
    expect(host.driverOf(VF0)).toBe('mlx5_core');
  });

  /** One ConnectX-6 PF whose first VF is bound to `vf0Driver` (null: unbound), with user-space and stub drivers loaded. */
  const hardware = (vf0Driver: string | null): FakeSysfsSpec => ({
    pfs: [{ model: 'connectx-6', pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, vfs: [{ driver: vf0Driver }, {}] }],
    drivers: ['uio_pci_generic', 'igb_uio', 'pci-stub'],
  });

  it.each([
    ['a VfConfig binding the VF to vfio-pci', 'mlx5_core', [driverConfig('vfio-pci')]],
    ['a VfConfig binding the VF to uio_pci_generic', 'mlx5_core', [driverConfig('uio_pci_generic')]],
    ['a VfConfig binding the VF to igb_uio', 'mlx5_core', [driverConfig('igb_uio')]],
    ['no VfConfig driver while the VF already is on vfio-pci', 'vfio-pci', []],
    ['no VfConfig driver while the VF is on uio_pci_generic', 'uio_pci_generic', []],
    ['a VfConfig naming the user-space driver the VF is already on', 'igb_uio', [driverConfig('igb_uio')]],
    ['no VfConfig driver while no driver is bound', null, []],
    ['no VfConfig driver while the bound kernel driver exposes no netdev', 'pci-stub', []],
    ['"default" while the bound kernel driver exposes no netdev', 'pci-stub', [driverConfig('default')]],
  ])('refuses %s before touching the host', async (_case, vf0Driver, config) => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2'], config);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]), hardware(vf0Driver));
    const refused = await (
      await host.open()
    )
      .prepare(CLAIM_A, signal, { claim, bindings: new Map([['0000-3b-00-2', planned('0000-3b-00-2', VF0, 'b')]]) })
      .catch((error: unknown) => error);
    expect(isSriovDraError(refused) && refused.code).toBe('UnsupportedDeviceState');
    expect(isSriovDraError(refused) && refused.message).toContain(VF0);
    expect(fs.existsSync(path.join(host.cdiRoot, '..', 'plugin', 'checkpoint.json'))).toBe(false);
    expect(host.cdiFiles()).toEqual([]);
    expect(host.driverOf(VF0)).toBe(vf0Driver);
  });

  it.each([
    ['no VfConfig driver', []],
    ['a VfConfig asking for "default"', [driverConfig('default')]],
    ['a VfConfig asking for vfio-pci', [driverConfig('vfio-pci')]],
  ])('refuses an InfiniBand VF with %s as UnsupportedLinkType before touching the host', async (_case, config) => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2', '0000-3b-00-3'], config);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]), uniformLayout({ pfs: 1, vfsPerPf: 2, linkType: 'infiniband' }));
    const bindings = new Map([
      ['0000-3b-00-2', planned('0000-3b-00-2', VF0, '1')],
      ['0000-3b-00-3', planned('0000-3b-00-3', VF1, '2')],
    ]);
    const refused = await (await host.open()).prepare(CLAIM_A, signal, { claim, bindings }).catch((error: unknown) => error);
    expect(isSriovDraError(refused) ? refused.code : refused).toBe('UnsupportedLinkType');
    expect(isSriovDraError(refused) && refused.message).toContain(`ResourceClaim ai/rail-pair: VF ${VF0} belongs to an InfiniBand PF`);
    expect(fs.existsSync(path.join(host.cdiRoot, '..', 'plugin', 'checkpoint.json'))).toBe(false);
    expect(host.cdiFiles()).toEqual([]);
    expect([host.driverOf(VF0), host.driverOf(VF1)]).toEqual(['mlx5_core', 'mlx5_core']);
  });

  it('rolls back and refuses a binding the VfConfig changes to a kernel driver that exposes no netdev', async () => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2'], [driverConfig('pci-stub')]);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]), hardware('mlx5_core'));
    const refused = await (
      await host.open()
    )
      .prepare(CLAIM_A, signal, { claim, bindings: new Map([['0000-3b-00-2', planned('0000-3b-00-2', VF0, 'e')]]) })
      .catch((error: unknown) => error);
    expect(isSriovDraError(refused) && refused.code).toBe('UnsupportedDeviceState');
    expect(isSriovDraError(refused) && refused.message).toContain(`VF ${VF0} is bound to pci-stub, which exposes no network interface`);
    expect([host.driverOf(VF0), host.netdevsOf(VF0)]).toEqual(['mlx5_core', ['enp59s0f0v0']]);
    expect(host.cdiFiles()).toEqual([]);
    // The record was written before the rebind: it holds the original driver, which unprepare restores.
    expect(host.checkpoint().claims[CLAIM_A.uid]?.devices.map((device) => [device.originalDriver, device.preparedDriver])).toEqual([
      ['mlx5_core', 'mlx5_core'],
    ]);
  });

  it('brings an unbound VF to its kernel driver when the VfConfig asks for "default", its netdev verified', async () => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2'], [driverConfig('default')]);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]), hardware(null));
    await (await host.open()).prepare(CLAIM_A, signal, { claim, bindings: new Map([['0000-3b-00-2', planned('0000-3b-00-2', VF0, 'f')]]) });
    expect([host.driverOf(VF0), host.netdevsOf(VF0)]).toEqual(['mlx5_core', ['enp59s0f0v0']]);
    expect(host.checkpoint().claims[CLAIM_A.uid]?.devices.map((device) => [device.originalDriver, device.preparedDriver])).toEqual([[null, 'mlx5_core']]);
  });

  it('releases the host once Deleting is durable, records ReleaseComplete, never repeats it, and forgets the claim last', async () => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2']);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]));
    await (await host.open()).prepare(CLAIM_A, signal, { claim, bindings: new Map([['0000-3b-00-2', planned('0000-3b-00-2', VF0, 'd')]]) });
    const pluginDir = path.join(host.cdiRoot, '..', 'plugin');
    const phaseOf = () =>
      (host.checkpoint().claims[CLAIM_A.uid]?.devices as { managedBinding?: { phase: string } }[] | undefined)?.map((device) => device.managedBinding?.phase);

    const early = await (await host.open()).releaseManagedHost(CLAIM_A, signal).catch((error: unknown) => error);
    expect(isSriovDraError(early) && early.code).toBe('UnsupportedDeviceState');
    expect(host.cdiFiles()).toEqual([`${DRIVER}-vf_${CLAIM_A.uid}.json`, `${DRIVER}-vf_${POD.uid}.json`]);
    await expect((await host.open()).forgetReleasedClaim(CLAIM_A)).rejects.toMatchObject({ code: 'UnsupportedDeviceState' });

    const store = await CheckpointStore.open({ directory: pluginDir });
    await store.updateClaim(CLAIM_A.uid, (record) => ({
      ...record,
      devices: record.devices.map((device) =>
        device.managedBinding === undefined ? device : { ...device, managedBinding: { ...device.managedBinding, phase: 'Deleting' } },
      ),
    }));
    const releasing = await host.open();
    await releasing.releaseManagedHost(CLAIM_A, signal);
    expect(phaseOf()).toEqual(['ReleaseComplete']);
    expect(host.cdiFiles()).toEqual([]);

    // Whatever happens to the VF afterwards is not this release's to undo again.
    await new DriverBinder({ sysfsRoot: path.join(host.cdiRoot, '..', 'sys') }).ensureDriver(VF0, 'vfio-pci');
    await releasing.releaseManagedHost(CLAIM_A, signal);
    expect(host.driverOf(VF0)).toBe('vfio-pci');

    await releasing.forgetReleasedClaim(CLAIM_A);
    expect(host.checkpoint().claims).toEqual({});
  });

  it('refuses a claim prepared before managed attachment was enabled', async () => {
    const claim = claimOf(CLAIM_A, ['0000-3b-00-2']);
    const host = await setup(new Map([[`ai/rail-pair`, claim]]));
    await (await host.open()).prepare(CLAIM_A, signal);
    const refused = await (
      await host.open()
    )
      .prepare(CLAIM_A, signal, { claim, bindings: new Map([['0000-3b-00-2', planned('0000-3b-00-2', VF0, 'c')]]) })
      .catch((error: unknown) => error);
    expect(isSriovDraError(refused) && refused.code).toBe('UnsupportedDeviceState');
  });
});
