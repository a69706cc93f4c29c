import { describe, expect, it } from '@jest/globals';
import { readNodeInventory } from './node-inventory.ts';

describe('readNodeInventory', () => {
  it('reads every PF and VF of status.interfaces, whether or not a policy selects it', () => {
    const state = {
      metadata: { name: 'worker-1', namespace: 'sriov-network-operator' },
      status: {
        syncStatus: 'Succeeded',
        interfaces: [
          {
            name: 'ens1f0',
            altNames: ['enp59s0f0np0'],
            pciAddress: '0000:3b:00.0',
            vendor: '15b3',
            deviceID: '1017',
            numVfs: 2,
            Vfs: [
              { pciAddress: '0000:3b:00.2', vfID: 0, vendor: '15b3', deviceID: '1018', driver: 'mlx5_core' },
              { pciAddress: '0000:3b:00.3', vfID: 1 },
            ],
          },
          { pciAddress: '0000:86:00.0', altNames: null, Vfs: null },
        ],
      },
    };
    expect(readNodeInventory(state)).toEqual({
      ok: true,
      inventory: {
        node: 'worker-1',
        pfs: [
          {
            name: 'ens1f0',
            altNames: ['enp59s0f0np0'],
            pciAddress: '0000:3b:00.0',
            vendor: '15b3',
            deviceID: '1017',
            vfs: [
              { pciAddress: '0000:3b:00.2', vfID: 0 },
              { pciAddress: '0000:3b:00.3', vfID: 1 },
            ],
          },
          // A PF the daemon reports without name, IDs or VFs: empty, never undefined.
          { name: '', altNames: [], pciAddress: '0000:86:00.0', vendor: '', deviceID: '', vfs: [] },
        ],
      },
    });
  });

  it('reads a state without status, or with null interfaces, as a node without PFs', () => {
    expect(readNodeInventory({ metadata: { name: 'worker-2' } })).toEqual({ ok: true, inventory: { node: 'worker-2', pfs: [] } });
    expect(readNodeInventory({ metadata: { name: 'worker-3' }, status: { interfaces: null } })).toEqual({ ok: true, inventory: { node: 'worker-3', pfs: [] } });
  });

  it('says why a malformed state is no inventory', () => {
    const result = readNodeInventory({
      metadata: { name: 'worker-1' },
      status: { interfaces: [{ pciAddress: '0000:3b:00.0', Vfs: [{ pciAddress: 'x', vfID: -1 }] }] },
    });
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('>=0') });
  });
});
