import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { type ManagedDeviceState, managedDeviceRefusal, netdevRefusal } from './managed-device-gate.ts';

const VF = '0000:3b:00.2';
const object = { kind: 'ResourceClaim', namespace: 'ai', name: 'rail-pair' };
const state = (driver: string | null, netdevs: readonly string[], linkType: ManagedDeviceState['linkType'] = 'ethernet'): ManagedDeviceState => ({
  pciAddress: VF,
  linkType,
  driver,
  netdevs,
});

/** The refusal's code and detail, or 'allowed'. */
function verdict(refusal: unknown): string {
  return isSriovDraError(refusal) ? `${refusal.code}: ${refusal.detail}` : 'allowed';
}

describe('managedDeviceRefusal', () => {
  it.each([
    ['kept kernel driver with a netdev', state('mlx5_core', ['enp59s0f0v0']), '', 'allowed'],
    ['"default" over a kernel driver with a netdev', state('iavf', ['ens1f0v0']), 'default', 'allowed'],
    ['the driver already bound, named', state('iavf', ['ens1f0v0']), 'iavf', 'allowed'],
    // A binding that changes can only be verified once it holds.
    ['"default" over vfio-pci', state('vfio-pci', []), 'default', 'allowed'],
    ['"default" over no driver', state(null, []), 'default', 'allowed'],
    ['another kernel driver named', state('vfio-pci', []), 'mlx5_core', 'allowed'],
    ['kept: no driver', state(null, []), '', `UnsupportedDeviceState: VF ${VF} has no driver bound, and its VfConfig keeps the binding as it is`],
    ['kept: vfio-pci', state('vfio-pci', []), '', `UnsupportedDeviceState: VF ${VF} is bound to vfio-pci, a user-space I/O driver`],
    ['kept: uio_pci_generic', state('uio_pci_generic', []), '', `UnsupportedDeviceState: VF ${VF} is bound to uio_pci_generic, a user-space I/O driver`],
    ['named: igb_uio, already bound', state('igb_uio', []), 'igb_uio', `UnsupportedDeviceState: VF ${VF} is bound to igb_uio, a user-space I/O driver`],
    ['named: igb_uio', state('mlx5_core', ['enp59s0f0v0']), 'igb_uio', `UnsupportedDeviceState: VF ${VF} would be bound to igb_uio, a user-space I/O driver`],
    [
      'named: vfio-pci',
      state('mlx5_core', ['enp59s0f0v0']),
      'vfio-pci',
      `UnsupportedDeviceState: VF ${VF} would be bound to vfio-pci, a user-space I/O driver`,
    ],
    [
      'kept: a kernel driver without netdev',
      state('pci-stub', []),
      '',
      `UnsupportedDeviceState: VF ${VF} is bound to pci-stub, which exposes no network interface`,
    ],
    [
      '"default" over a kernel driver without netdev',
      state('pci-stub', []),
      'default',
      `UnsupportedDeviceState: VF ${VF} is bound to pci-stub, which exposes no network interface`,
    ],
    ['InfiniBand, kept', state('mlx5_core', ['ibp59s0f0v0'], 'infiniband'), '', `UnsupportedLinkType: VF ${VF} belongs to an InfiniBand PF`],
    ['InfiniBand, vfio-pci named', state('mlx5_core', ['ibp59s0f0v0'], 'infiniband'), 'vfio-pci', `UnsupportedLinkType: VF ${VF} belongs to an InfiniBand PF`],
    ['unknown link type, kept', state('mlx5_core', ['enp59s0f0v0'], 'unknown'), '', 'allowed'],
  ])('%s: %s', (_case, current, wanted, expected) => {
    expect(verdict(managedDeviceRefusal(current, wanted, object))).toBe(expected);
  });

  it('names the claim and says what to do', () => {
    const refusal = managedDeviceRefusal(state('uio_pci_generic', []), '', object);
    expect(refusal?.message).toMatch(
      /^UnsupportedDeviceState: ResourceClaim ai\/rail-pair: VF 0000:3b:00\.2 is bound to uio_pci_generic.* — bind the VF to its kernel network driver/,
    );
  });
});

describe('netdevRefusal', () => {
  it('allows a binding with a network interface and refuses one without', () => {
    expect(verdict(netdevRefusal(VF, 'mlx5_core', ['enp59s0f0v0'], object))).toBe('allowed');
    expect(verdict(netdevRefusal(VF, 'pci-stub', [], object))).toBe(
      `UnsupportedDeviceState: VF ${VF} is bound to pci-stub, which exposes no network interface`,
    );
    expect(verdict(netdevRefusal(VF, null, [], object))).toBe(`UnsupportedDeviceState: VF ${VF} is bound to no driver, which exposes no network interface`);
  });
});
