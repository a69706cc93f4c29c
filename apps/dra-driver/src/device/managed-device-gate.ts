import { type ObjectRef, SriovDraError } from '@sriov-dra/contract';
import type { LinkType } from '../discovery/virtual-function.ts';
import { DEFAULT_DRIVER, KEEP_DRIVER, isUserspaceIoDriver } from './driver-binding.ts';

/** One VF as managed prepare finds it, before it changes anything. */
export interface ManagedDeviceState {
  readonly pciAddress: string;
  /** The link type of the VF's PF, as discovery read it. */
  readonly linkType: LinkType;
  /** The driver bound now; null when none is. */
  readonly driver: string | null;
  /** The network interfaces the bound driver exposes now. */
  readonly netdevs: readonly string[];
}

const NETDEVICE_REMEDY =
  'bind the VF to its kernel network driver, or set VfConfig.driver to "default" or to that driver; user-space VFs (VFIO, DPDK) need a node whose driver runs without --multus-auto-attach';

/**
 * §4.1 and §8.1 step 2, before any host change: a managed shadow network attaches an Ethernet VF through
 * its kernel netdevice. An InfiniBand VF is refused whatever it is bound to and whatever its VfConfig
 * asks. A VF is refused when prepare would leave it without a driver or on a user-space I/O driver,
 * or keep a binding that exposes no network interface. An empty VfConfig.driver keeps the current
 * binding, and "default" keeps a kernel driver already bound, so for those what is bound now, checked
 * here, is what the shadow would get; a binding that changes is verified once it holds (`netdevRefusal`).
 */
export function managedDeviceRefusal(state: ManagedDeviceState, wanted: string, object: ObjectRef): SriovDraError | undefined {
  const vf = state.pciAddress;
  if (state.linkType === 'infiniband') return new SriovDraError('UnsupportedLinkType', `VF ${vf} belongs to an InfiniBand PF`, { object });
  const keeps = wanted === KEEP_DRIVER || wanted === state.driver || (wanted === DEFAULT_DRIVER && state.driver !== null && !isUserspaceIoDriver(state.driver));
  const target = keeps ? state.driver : wanted;
  if (target === null) {
    return new SriovDraError('UnsupportedDeviceState', `VF ${vf} has no driver bound, and its VfConfig keeps the binding as it is`, {
      object,
      remedy: NETDEVICE_REMEDY,
    });
  }
  if (isUserspaceIoDriver(target)) {
    return new SriovDraError('UnsupportedDeviceState', `VF ${vf} ${keeps ? 'is' : 'would be'} bound to ${target}, a user-space I/O driver`, {
      object,
      remedy: NETDEVICE_REMEDY,
    });
  }
  return keeps ? netdevRefusal(vf, target, state.netdevs, object) : undefined;
}

/** A VF whose kernel driver exposes no network interface cannot be attached by a shadow network. */
export function netdevRefusal(pciAddress: string, driver: string | null, netdevs: readonly string[], object: ObjectRef): SriovDraError | undefined {
  if (netdevs.length > 0) return undefined;
  return new SriovDraError('UnsupportedDeviceState', `VF ${pciAddress} is bound to ${driver ?? 'no driver'}, which exposes no network interface`, {
    object,
    remedy: NETDEVICE_REMEDY,
  });
}
