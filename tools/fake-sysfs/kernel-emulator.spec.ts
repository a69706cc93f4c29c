import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { generateFakeSysfs, uniformLayout } from './generate.ts';
import { type KernelEmulator, startKernelEmulator } from './kernel-emulator.ts';

const VF = '0000:3b:00.2';
let root = '';
let devRoot = '';
let emulator: KernelEmulator;

const at = (relative: string): string => path.join(root, relative);
const driverOf = (bdf: string): string | undefined => {
  try {
    return path.basename(fs.readlinkSync(at(`bus/pci/devices/${bdf}/driver`)));
  } catch {
    return undefined;
  }
};
const entries = (relative: string): string[] => (fs.existsSync(at(relative)) ? fs.readdirSync(at(relative)) : []);
const write = (relative: string, value: string): Promise<void> => fs.promises.writeFile(at(relative), value);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kernel-emulator-'));
  devRoot = path.join(root, 'dev');
  generateFakeSysfs(root, uniformLayout({ pfs: 1, vfsPerPf: 2 }));
  emulator = startKernelEmulator({ root, devRoot });
});

afterEach(async () => {
  await emulator.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('kernel emulator', () => {
  it('unbind removes the driver link, the netdev, its class/net link and the RDMA device', async () => {
    await write('bus/pci/drivers/mlx5_core/unbind', VF);
    expect(driverOf(VF)).toBeUndefined();
    expect(entries(`bus/pci/devices/${VF}/net`)).toEqual([]);
    expect(entries(`bus/pci/devices/${VF}/infiniband`)).toEqual([]);
    expect(fs.existsSync(at('class/net/enp59s0f0v0'))).toBe(false);
    expect(fs.existsSync(at(`bus/pci/drivers/mlx5_core/${VF}`))).toBe(false);
    expect(driverOf('0000:3b:00.3')).toBe('mlx5_core');
  });

  it('binds vfio-pci only through driver_override, without netdev and with the IOMMU group device', async () => {
    await write('bus/pci/drivers/mlx5_core/unbind', VF);
    await write('bus/pci/drivers/vfio-pci/bind', VF);
    expect(driverOf(VF)).toBeUndefined();
    expect(emulator.writes.at(-1)).toMatchObject({ outcome: 'rejected', detail: 'vfio-pci does not match 0000:3b:00.2 (ENODEV)' });

    await write(`bus/pci/devices/${VF}/driver_override`, 'vfio-pci');
    await write('bus/pci/drivers/vfio-pci/bind', VF);
    expect(driverOf(VF)).toBe('vfio-pci');
    expect(entries(`bus/pci/devices/${VF}/net`)).toEqual([]);
    expect(entries(`bus/pci/devices/${VF}/vfio-dev`)).toEqual(['vfio2']);
    expect(fs.readdirSync(path.join(devRoot, 'vfio'))).toEqual(['2']);
  });

  it('drivers_probe binds the override, or else the default driver, and recreates the same netdev', async () => {
    await write(`bus/pci/devices/${VF}/driver_override`, 'vfio-pci');
    await write('bus/pci/drivers/mlx5_core/unbind', VF);
    await write('bus/pci/drivers_probe', VF);
    expect(driverOf(VF)).toBe('vfio-pci');

    // The Go driver clears an override by writing a NUL byte.
    await write(`bus/pci/devices/${VF}/driver_override`, '\0');
    await write('bus/pci/drivers/vfio-pci/unbind', VF);
    expect(fs.readdirSync(path.join(devRoot, 'vfio'))).toEqual([]);
    await write('bus/pci/drivers_probe', VF);
    expect(driverOf(VF)).toBe('mlx5_core');
    expect(entries(`bus/pci/devices/${VF}/net`)).toEqual(['enp59s0f0v0']);
    expect(fs.readFileSync(at('class/net/enp59s0f0v0/type'), 'utf8')).toBe('1\n');
    expect(entries(`bus/pci/devices/${VF}/infiniband`)).toHaveLength(1);
  });

  it('rejects what the kernel rejects, and the writer cannot tell', async () => {
    await write('bus/pci/drivers/vfio-pci/unbind', VF);
    await write('bus/pci/drivers/mlx5_core/bind', VF);
    await write('bus/pci/drivers/mlx5_core/unbind', '0000:99:00.0');
    await write('bus/pci/drivers/mlx5_core/unbind', 'garbage');
    expect(emulator.writes.map(({ outcome, detail }) => [outcome, detail])).toEqual([
      ['rejected', '0000:3b:00.2 is not bound to vfio-pci (ENODEV)'],
      ['rejected', '0000:3b:00.2 is already bound to mlx5_core (EBUSY)'],
      ['rejected', 'no PCI device "0000:99:00.0" (ENODEV)'],
      ['rejected', 'no PCI device "garbage" (ENODEV)'],
    ]);
    expect(driverOf(VF)).toBe('mlx5_core');
  });

  it('applies each of several writes that arrive together', async () => {
    await Promise.all([write('bus/pci/drivers/mlx5_core/unbind', `${VF}\n`), write('bus/pci/drivers/mlx5_core/unbind', '0000:3b:00.3\n')]);
    expect([driverOf(VF), driverOf('0000:3b:00.3')]).toEqual([undefined, undefined]);
    expect(emulator.writes.map(({ value, outcome }) => [value, outcome]).sort()).toEqual([
      [VF, 'applied'],
      ['0000:3b:00.3', 'applied'],
    ]);
  });

  it('puts plain files back when stopped, so a late write lands without effect instead of blocking', async () => {
    await emulator.stop();
    expect(fs.statSync(at('bus/pci/drivers_probe')).isFile()).toBe(true);
    await write('bus/pci/drivers/mlx5_core/unbind', VF);
    expect(driverOf(VF)).toBe('mlx5_core');
    emulator = startKernelEmulator({ root, devRoot });
  });
});
