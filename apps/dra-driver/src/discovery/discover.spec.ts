import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { type FakeSysfsSpec, generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { type Inventory, discoverInventory } from './discover.ts';
import { type Sysfs, createSysfs } from './sysfs.ts';

const roots: string[] = [];

afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function tree(spec: FakeSysfsSpec): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'discover-'));
  roots.push(root);
  generateFakeSysfs(root, spec);
  return root;
}

async function discover(root: string): Promise<Inventory> {
  const result = await discoverInventory(createSysfs(root));
  if (!result.ok) throw result.error;
  return result.value;
}

function write(root: string, relative: string, content: string): void {
  fs.writeFileSync(path.join(root, relative), content);
}

const twoConnectX6 = uniformLayout({ pfs: 2, vfsPerPf: 2 });

describe('discoverInventory', () => {
  it('describes every VF of every SR-IOV NIC, with its PF, below the right root complex and NUMA node', async () => {
    const inventory = await discover(tree(twoConnectX6));
    expect(inventory.skipped).toEqual([]);
    expect(inventory.virtualFunctions.map((vf) => vf.pciAddress)).toEqual(['0000:3b:00.2', '0000:3b:00.3', '0000:87:00.2', '0000:87:00.3']);
    const pf0 = {
      pciAddress: '0000:3b:00.0',
      netdev: 'enp59s0f0',
      vendor: '15b3',
      deviceID: '101b',
      totalVfs: 8,
      numVfs: 2,
      linkType: 'ethernet',
      linkUp: true,
      pcieRoot: 'pci0000:3a',
      numaNode: 0,
    };
    expect(inventory.physicalFunctions).toEqual([pf0, { ...pf0, pciAddress: '0000:87:00.0', netdev: 'enp135s0f0', pcieRoot: 'pci0000:86', numaNode: 1 }]);
    expect(inventory.virtualFunctions[1]).toEqual({
      pciAddress: '0000:3b:00.3',
      vfIndex: 1,
      pf: pf0,
      vendor: '15b3',
      deviceID: '101c',
      driver: 'mlx5_core',
      netdev: 'enp59s0f0v1',
      pcieRoot: 'pci0000:3a',
      numaNode: 0,
      rdmaCapable: true,
    });
    expect(inventory.virtualFunctions[2]).toMatchObject({ pciAddress: '0000:87:00.2', vfIndex: 0, pcieRoot: 'pci0000:86', numaNode: 1 });
  });

  it('reports unbound and vfio-pci VFs without a driver or netdev they do not have', async () => {
    const root = tree({
      pfs: [{ model: 'e810', pcieRoot: 'pci0000:17', bus: 0x18, numaNode: 0, vfs: [{ driver: null }, { driver: 'vfio-pci' }, {}] }],
    });
    const [unbound, vfio, iavf] = (await discover(root)).virtualFunctions;
    expect(unbound).toMatchObject({ pciAddress: '0000:18:00.2', vendor: '8086', deviceID: '1889', rdmaCapable: false });
    expect(unbound?.driver).toBeUndefined();
    expect(unbound?.netdev).toBeUndefined();
    expect(vfio).toMatchObject({ driver: 'vfio-pci' });
    expect(vfio?.netdev).toBeUndefined();
    expect(iavf).toMatchObject({ driver: 'iavf', netdev: 'enp24s0f0v2' });
    expect(iavf?.pf).toMatchObject({ deviceID: '1593', pcieRoot: 'pci0000:17' });
  });

  it('reads the link type, the eswitch mode and a down link from the PF netdev', async () => {
    const root = tree(uniformLayout({ pfs: 1, vfsPerPf: 1, linkType: 'infiniband', eswitchMode: 'switchdev', operstate: 'down' }));
    const [pf] = (await discover(root)).physicalFunctions;
    expect(pf).toMatchObject({ linkType: 'infiniband', eswitchMode: 'switchdev', linkUp: false });
  });

  it('gives a PF without netdev an unknown link type and a link that is not up', async () => {
    const root = tree({ pfs: [{ model: 'connectx-6', pcieRoot: 'pci0000:3a', bus: 0x3b, numaNode: 0, netdev: null, vfs: [{}] }] });
    const inventory = await discover(root);
    expect(inventory.physicalFunctions[0]).toMatchObject({ linkType: 'unknown', linkUp: false });
    expect(inventory.physicalFunctions[0]?.netdev).toBeUndefined();
    expect(inventory.virtualFunctions[0]?.netdev).toBe('enp59s0f2');
  });

  it('leaves the NUMA node out when the kernel reports -1', async () => {
    const inventory = await discover(tree(uniformLayout({ pfs: 1, vfsPerPf: 1, numaNodes: [-1] })));
    expect(inventory.physicalFunctions[0]).not.toHaveProperty('numaNode');
    expect(inventory.virtualFunctions[0]).not.toHaveProperty('numaNode');
  });

  it('leaves the PCIe root out when the device is not below a PCI host bridge', async () => {
    const root = tree(uniformLayout({ pfs: 1, vfsPerPf: 1 }));
    // The whole hierarchy now resolves below devices/soc0, as on a platform bus.
    fs.renameSync(path.join(root, 'devices/pci0000:3a'), path.join(root, 'devices/soc0'));
    fs.symlinkSync('soc0', path.join(root, 'devices/pci0000:3a'));
    const inventory = await discover(root);
    expect(inventory.virtualFunctions).toHaveLength(1);
    expect(inventory.physicalFunctions[0]).not.toHaveProperty('pcieRoot');
    expect(inventory.virtualFunctions[0]).not.toHaveProperty('pcieRoot');
  });

  it('ignores PCI functions that are not SR-IOV network PFs', async () => {
    const root = tree(uniformLayout({ pfs: 2, vfsPerPf: 1 }));
    // An SR-IOV NVMe controller has the capability but is no NIC.
    write(root, 'bus/pci/devices/0000:87:00.0/class', '0x010802\n');
    const inventory = await discover(root);
    expect(inventory.physicalFunctions.map((pf) => pf.pciAddress)).toEqual(['0000:3b:00.0']);
    expect(inventory.virtualFunctions.map((vf) => vf.pciAddress)).toEqual(['0000:3b:00.2']);
    expect(inventory.skipped).toEqual([]);
  });

  describe('a malformed device is skipped with the entry at fault, and never hides the others', () => {
    it('a non-numeric sriov_totalvfs skips the PF and its VFs', async () => {
      const root = tree(twoConnectX6);
      write(root, 'bus/pci/devices/0000:3b:00.0/sriov_totalvfs', 'eight\n');
      const inventory = await discover(root);
      expect(inventory.virtualFunctions.map((vf) => vf.pciAddress)).toEqual(['0000:87:00.2', '0000:87:00.3']);
      expect(inventory.skipped).toHaveLength(1);
      expect(inventory.skipped[0]?.pciAddress).toBe('0000:3b:00.0');
      expect(inventory.skipped[0]?.error.toJSON()).toMatchObject({
        code: 'MalformedSysfsValue',
        path: `${root}/bus/pci/devices/0000:3b:00.0/sriov_totalvfs`,
        detail: 'holds "eight", expected a non-negative integer',
      });
    });

    it('a dangling virtfn link skips that VF only', async () => {
      const root = tree(twoConnectX6);
      fs.rmSync(path.join(root, 'devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2'), { recursive: true });
      const inventory = await discover(root);
      expect(inventory.virtualFunctions.map((vf) => vf.pciAddress)).toEqual(['0000:3b:00.3', '0000:87:00.2', '0000:87:00.3']);
      expect(inventory.skipped.map(({ pciAddress, error }) => ({ pciAddress, code: error.code, path: error.path }))).toEqual([
        { pciAddress: '0000:3b:00.2', code: 'SysfsDanglingLink', path: `${root}/bus/pci/devices/0000:3b:00.0/virtfn0` },
      ]);
    });

    it('a VF without vendor file is skipped', async () => {
      const root = tree(twoConnectX6);
      fs.rmSync(path.join(root, 'bus/pci/devices/0000:87:00.3/vendor'));
      const inventory = await discover(root);
      expect(inventory.virtualFunctions).toHaveLength(3);
      expect(inventory.skipped.map(({ pciAddress, error }) => ({ pciAddress, code: error.code, path: error.path }))).toEqual([
        { pciAddress: '0000:87:00.3', code: 'SysfsEntryMissing', path: `${root}/bus/pci/devices/0000:87:00.3/vendor` },
      ]);
    });

    it.each([
      ['bus/pci/devices/0000:3b:00.2/numa_node', 'zero\n', '0000:3b:00.2'],
      ['bus/pci/devices/0000:3b:00.2/device', '101c\n', '0000:3b:00.2'],
      ['bus/pci/devices/0000:3b:00.0/vendor', '0x15b\n', '0000:3b:00.0'],
      ['bus/pci/devices/0000:3b:00.0/sriov_numvfs', '-1\n', '0000:3b:00.0'],
      ['bus/pci/devices/0000:3b:00.0/class', 'network\n', '0000:3b:00.0'],
      ['class/net/enp59s0f0/operstate', 'sideways\n', '0000:3b:00.0'],
      ['class/net/enp59s0f0/type', 'ether\n', '0000:3b:00.0'],
    ])('%s holding %j skips %s', async (file, content, skippedAddress) => {
      const root = tree(twoConnectX6);
      write(root, file, content);
      const inventory = await discover(root);
      expect(inventory.skipped.map(({ pciAddress, error }) => ({ pciAddress, code: error.code, path: error.path }))).toEqual([
        { pciAddress: skippedAddress, code: 'MalformedSysfsValue', path: expect.stringMatching(new RegExp(`/${path.basename(file)}$`)) },
      ]);
      expect(inventory.virtualFunctions.map((vf) => vf.pciAddress)).toContain('0000:87:00.2');
    });

    it('a malformed eswitch mode is reported too', async () => {
      const root = tree(uniformLayout({ pfs: 1, vfsPerPf: 1, eswitchMode: 'legacy' }));
      write(root, 'class/net/enp59s0f0/compat/devlink/mode', 'offload\n');
      const inventory = await discover(root);
      expect(inventory.skipped[0]?.error.code).toBe('MalformedSysfsValue');
    });
  });

  describe('reading a bus of many functions', () => {
    /** The sysfs of `root`, reporting each root-relative path it is asked for when the operation starts and ends. */
    function observed(root: string, observe: (relative: string, phase: 'start' | 'end') => void): Sysfs {
      const sysfs = createSysfs(root);
      const wrap = <T>(relative: string, operation: () => Promise<T>): Promise<T> => {
        observe(relative, 'start');
        return operation().finally(() => {
          observe(relative, 'end');
        });
      };
      return {
        describe: (relative) => sysfs.describe(relative),
        readText: (relative) => wrap(relative, () => sysfs.readText(relative)),
        list: (relative) => wrap(relative, () => sysfs.list(relative)),
        readLink: (relative) => wrap(relative, () => sysfs.readLink(relative)),
        resolve: (relative) => wrap(relative, () => sysfs.resolve(relative)),
        kind: (relative) => wrap(relative, () => sysfs.kind(relative)),
      };
    }

    it('reads at most eight PCI functions at a time', async () => {
      const operations = new Map<string, number>();
      let most = 0;
      const sysfs = observed(tree(uniformLayout({ pfs: 2, vfsPerPf: 32 })), (relative, phase) => {
        const fn = /^bus\/pci\/devices\/([^/]+)\//.exec(relative)?.[1];
        if (fn === undefined) return;
        const count = (operations.get(fn) ?? 0) + (phase === 'start' ? 1 : -1);
        if (count === 0) operations.delete(fn);
        else operations.set(fn, count);
        most = Math.max(most, operations.size);
      });
      const result = await discoverInventory(sysfs);
      expect(result.ok ? result.value.virtualFunctions : []).toHaveLength(64);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(8);
    });

    it('reads nothing past sriov_totalvfs of a function without the SR-IOV capability', async () => {
      const read: string[] = [];
      const sysfs = observed(tree(uniformLayout({ pfs: 1, vfsPerPf: 2 })), (relative, phase) => {
        if (phase === 'start') read.push(relative);
      });
      await discoverInventory(sysfs);
      expect(read.filter((relative) => relative.endsWith('/sriov_numvfs'))).toEqual(['bus/pci/devices/0000:3b:00.0/sriov_numvfs']);
    });
  });

  it('fails the whole scan only when the PCI bus cannot be listed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'discover-'));
    roots.push(root);
    const result = await discoverInventory(createSysfs(root));
    expect(result.ok ? undefined : result.error.toJSON()).toMatchObject({ code: 'SysfsEntryMissing', path: `${root}/bus/pci/devices` });
  });
});
