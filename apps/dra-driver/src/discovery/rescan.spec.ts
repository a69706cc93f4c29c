import { describe, expect, it } from '@jest/globals';
import type { Inventory } from './discover.ts';
import { INITIAL_SCAN_STATE, diffScans } from './rescan.ts';
import { SysfsError } from './sysfs-error.ts';
import type { PhysicalFunction, VirtualFunction } from './virtual-function.ts';

const pf: PhysicalFunction = {
  pciAddress: '0000:3b:00.0',
  netdev: 'ens1f0',
  vendor: '15b3',
  deviceID: '101b',
  totalVfs: 8,
  numVfs: 2,
  linkType: 'ethernet',
  linkUp: true,
  pcieRoot: 'pci0000:3a',
};

function vfOf(parent: PhysicalFunction, vfIndex: number, extra: Partial<VirtualFunction> = {}): VirtualFunction {
  return { pciAddress: `0000:3b:00.${vfIndex + 2}`, vfIndex, pf: parent, vendor: '15b3', deviceID: '101c', driver: 'mlx5_core', rdmaCapable: false, ...extra };
}

function inventory(virtualFunctions: VirtualFunction[], skipped: Inventory['skipped'] = []): Inventory {
  return { physicalFunctions: [], virtualFunctions, skipped };
}

const vf0 = vfOf(pf, 0);
const vf1 = vfOf(pf, 1);

describe('diffScans', () => {
  it('reports every device of the first scan as added and healthy', () => {
    const diff = diffScans(INITIAL_SCAN_STATE, inventory([vf0, vf1]));
    expect(diff.inventoryChanges).toEqual({ added: [vf0, vf1], removed: [], changed: [] });
    expect(diff.healthChanges).toEqual([
      { device: '0000-3b-00-2', pciAddress: '0000:3b:00.2', previous: undefined, current: { status: 'Healthy' } },
      { device: '0000-3b-00-3', pciAddress: '0000:3b:00.3', previous: undefined, current: { status: 'Healthy' } },
    ]);
  });

  it('reports nothing when nothing changed', () => {
    const first = diffScans(INITIAL_SCAN_STATE, inventory([vf0, vf1]));
    const second = diffScans(first.state, inventory([vfOf(pf, 0), vfOf(pf, 1)]));
    expect(second.inventoryChanges).toEqual({ added: [], removed: [], changed: [] });
    expect(second.healthChanges).toEqual([]);
  });

  it('makes a VF that disappears Unhealthy, and keeps it so on later scans without repeating the change', () => {
    const first = diffScans(INITIAL_SCAN_STATE, inventory([vf0, vf1]));
    const second = diffScans(first.state, inventory([vf0]));
    expect(second.inventoryChanges.removed).toEqual([vf1]);
    expect(second.healthChanges).toEqual([
      {
        device: '0000-3b-00-3',
        pciAddress: '0000:3b:00.3',
        previous: { status: 'Healthy' },
        current: { status: 'Unhealthy', reason: 'VirtualFunctionMissing', message: 'VF 0000:3b:00.3 is no longer on the PCI bus' },
      },
    ]);
    const third = diffScans(second.state, inventory([vf0]));
    expect(third.healthChanges).toEqual([]);
    expect(third.state.health.get('0000-3b-00-3')).toMatchObject({ status: 'Unhealthy' });
  });

  it('makes a VF that can no longer be read Unhealthy with the skip reason', () => {
    const first = diffScans(INITIAL_SCAN_STATE, inventory([vf0]));
    const error = new SysfsError('SysfsEntryMissing', '/sys/bus/pci/devices/0000:3b:00.2/vendor', 'does not exist');
    const second = diffScans(first.state, inventory([], [{ pciAddress: '0000:3b:00.2', error }]));
    expect(second.healthChanges.map((change) => change.current)).toEqual([
      { status: 'Unhealthy', reason: 'VirtualFunctionUnreadable', message: error.message },
    ]);
  });

  it('makes every VF of a PF whose link goes down Unhealthy, and Healthy again when it comes back', () => {
    const first = diffScans(INITIAL_SCAN_STATE, inventory([vf0, vf1]));
    const down = { ...pf, linkUp: false };
    const second = diffScans(first.state, inventory([vfOf(down, 0), vfOf(down, 1)]));
    expect(second.healthChanges.map(({ device, current }) => [device, current])).toEqual([
      ['0000-3b-00-2', { status: 'Unhealthy', reason: 'PhysicalFunctionLinkDown', message: 'PF 0000:3b:00.0 link ens1f0 is down' }],
      ['0000-3b-00-3', { status: 'Unhealthy', reason: 'PhysicalFunctionLinkDown', message: 'PF 0000:3b:00.0 link ens1f0 is down' }],
    ]);
    expect(second.inventoryChanges.changed).toHaveLength(2);
    const third = diffScans(second.state, inventory([vf0, vf1]));
    expect(third.healthChanges.map(({ current }) => current)).toEqual([{ status: 'Healthy' }, { status: 'Healthy' }]);
  });

  it('says so when the PF has no netdev at all', () => {
    const noNetdev: PhysicalFunction = {
      pciAddress: '0000:3b:00.0',
      vendor: '15b3',
      deviceID: '101b',
      totalVfs: 8,
      numVfs: 1,
      linkType: 'unknown',
      linkUp: false,
    };
    const diff = diffScans(INITIAL_SCAN_STATE, inventory([vfOf(noNetdev, 0)]));
    expect(diff.healthChanges[0]?.current).toEqual({ status: 'Unhealthy', reason: 'PhysicalFunctionLinkDown', message: 'PF 0000:3b:00.0 has no netdev' });
  });

  it('reports a VF as changed when its driver, netdev or attributes change, and a returning VF as added and healthy', () => {
    const first = diffScans(INITIAL_SCAN_STATE, inventory([vf0, vf1]));
    const rebound = vfOf(pf, 0, { driver: 'vfio-pci' });
    const second = diffScans(first.state, inventory([rebound]));
    expect(second.inventoryChanges).toEqual({ added: [], removed: [vf1], changed: [rebound] });
    const withNetdev = vfOf(pf, 0, { driver: 'vfio-pci', netdev: 'x' });
    const third = diffScans(second.state, inventory([withNetdev, vf1]));
    expect(third.inventoryChanges).toEqual({ added: [vf1], removed: [], changed: [withNetdev] });
    expect(third.healthChanges.map(({ device, current }) => [device, current.status])).toEqual([['0000-3b-00-3', 'Healthy']]);
  });
});
