import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { generateFakeSysfs, uniformLayout } from './generate.ts';

const roots: string[] = [];

afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-sysfs-'));
  roots.push(root);
  return root;
}

describe('generateFakeSysfs', () => {
  it('lays a ConnectX-6 PF and its VFs out as the kernel does', () => {
    const root = tempRoot();
    generateFakeSysfs(root, uniformLayout({ pfs: 1, vfsPerPf: 2 }));
    const at = (relative: string): string => path.join(root, relative);
    expect(fs.readlinkSync(at('bus/pci/devices/0000:3b:00.0'))).toBe('../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0');
    expect(fs.readlinkSync(at('bus/pci/devices/0000:3b:00.3'))).toBe('../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.3');
    const pf = 'devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0';
    const vf = 'devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2';
    expect(fs.readlinkSync(at(`${pf}/virtfn0`))).toBe('../0000:3b:00.2');
    expect(fs.readlinkSync(at(`${vf}/physfn`))).toBe('../0000:3b:00.0');
    expect(fs.readlinkSync(at(`${vf}/driver`))).toBe('../../../../bus/pci/drivers/mlx5_core');
    expect(fs.readlinkSync(at('bus/pci/drivers/mlx5_core/0000:3b:00.2'))).toBe('../../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2');
    expect(fs.readlinkSync(at('class/net/enp59s0f0v0'))).toBe('../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/net/enp59s0f0v0');
    expect(['vendor', 'device', 'class', 'numa_node', 'driver_override'].map((file) => fs.readFileSync(at(`${vf}/${file}`), 'utf8'))).toEqual([
      '0x15b3\n',
      '0x101c\n',
      '0x020000\n',
      '0\n',
      '(null)\n',
    ]);
    expect(['vendor', 'device', 'sriov_totalvfs', 'sriov_numvfs'].map((file) => fs.readFileSync(at(`${pf}/${file}`), 'utf8'))).toEqual([
      '0x15b3\n',
      '0x101b\n',
      '8\n',
      '2\n',
    ]);
    expect(fs.readFileSync(at(`${vf}/net/enp59s0f0v0/type`), 'utf8')).toBe('1\n');
    expect(fs.readdirSync(at(`${vf}/infiniband`))).toEqual(['mlx5_1']);
    expect(fs.readlinkSync(at(`${vf}/iommu_group`))).toBe('../../../../kernel/iommu_groups/2');
    for (const file of ['bus/pci/drivers_probe', 'bus/pci/drivers/mlx5_core/bind', 'bus/pci/drivers/vfio-pci/unbind']) {
      expect(fs.statSync(at(file)).isFile()).toBe(true);
    }
  });

  it('spreads PFs over the configured roots and NUMA nodes, with E810 IDs and VF drivers as asked', () => {
    const root = tempRoot();
    const generated = generateFakeSysfs(
      root,
      uniformLayout({ pfs: 3, vfsPerPf: 1, model: 'e810', pcieRoots: ['pci0000:17', 'pci0000:b2'], numaNodes: [0, -1], vfDriver: 'vfio-pci' }),
    );
    expect(generated.pfs.map(({ pciAddress, netdev, vfs }) => [pciAddress, netdev, vfs.map((vf) => [vf.pciAddress, vf.driver, vf.netdev])])).toEqual([
      ['0000:18:00.0', 'enp24s0f0', [['0000:18:00.2', 'vfio-pci', undefined]]],
      ['0000:b3:00.0', 'enp179s0f0', [['0000:b3:00.2', 'vfio-pci', undefined]]],
      ['0000:19:00.0', 'enp25s0f0', [['0000:19:00.2', 'vfio-pci', undefined]]],
    ]);
    expect(fs.readFileSync(path.join(root, 'bus/pci/devices/0000:b3:00.2/numa_node'), 'utf8')).toBe('-1\n');
    expect(fs.readFileSync(path.join(root, 'bus/pci/devices/0000:b3:00.0/device'), 'utf8')).toBe('0x1593\n');
    expect(fs.readlinkSync(path.join(root, 'bus/pci/devices/0000:b3:00.2/driver'))).toBe('../../../../bus/pci/drivers/vfio-pci');
    expect(fs.existsSync(path.join(root, 'bus/pci/devices/0000:b3:00.2/net'))).toBe(false);
  });

  it('loads the extra drivers asked for, with no function bound, and binds a VF to a user-space driver without netdev', () => {
    const root = tempRoot();
    const pf = { model: 'connectx-6' as const, pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, vfs: [{ driver: 'uio_pci_generic' }, {}] };
    const generated = generateFakeSysfs(root, { pfs: [pf], drivers: ['pci-stub'] });
    expect(generated.pfs[0]?.vfs.map((vf) => [vf.driver, vf.netdev])).toEqual([
      ['uio_pci_generic', undefined],
      ['mlx5_core', 'enp59s0f0v1'],
    ]);
    expect(fs.readdirSync(path.join(root, 'bus/pci/drivers')).sort()).toEqual(['mlx5_core', 'pci-stub', 'pcieport', 'uio_pci_generic', 'vfio-pci']);
    expect(fs.readdirSync(path.join(root, 'bus/pci/drivers/pci-stub')).sort()).toEqual(['bind', 'new_id', 'remove_id', 'unbind']);
    expect(fs.existsSync(path.join(root, 'bus/pci/devices/0000:3b:00.2/net'))).toBe(false);
  });

  it('refuses two PFs on one bus', () => {
    const spec = { model: 'connectx-6' as const, pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, vfs: [] };
    expect(() => generateFakeSysfs(tempRoot(), { pfs: [spec, spec] })).toThrow('PCI address 0000:3b:00.0 is used twice');
  });
});
