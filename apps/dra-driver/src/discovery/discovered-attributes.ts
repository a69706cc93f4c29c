import { DRIVER_NAME, type DeviceAttributeValue } from '@sriov-dra/contract';
import type { VirtualFunction } from './virtual-function.ts';

/**
 * Names of the attributes discovery publishes for every VF: the upstream driver's set, so DeviceClass and
 * claim selectors written for it keep matching. All of them are in DISCOVERY_RESERVED_ATTRIBUTES, which
 * keeps configuration from overriding hardware identity.
 */
export const discoveredAttributeKeys = {
  vendor: `${DRIVER_NAME}/vendor`,
  deviceID: `${DRIVER_NAME}/deviceID`,
  pfDeviceID: `${DRIVER_NAME}/pfDeviceID`,
  pciAddress: `${DRIVER_NAME}/pciAddress`,
  pfName: `${DRIVER_NAME}/PFName`,
  eswitchMode: `${DRIVER_NAME}/EswitchMode`,
  vfID: `${DRIVER_NAME}/vfID`,
  pfPciAddress: `${DRIVER_NAME}/pfPciAddress`,
  linkType: `${DRIVER_NAME}/linkType`,
  rdmaCapable: `${DRIVER_NAME}/rdmaCapable`,
  /** Multus/sriov-cni lookup key: the VF's PCI address. */
  multusDeviceID: 'k8s.cni.cncf.io/deviceID',
  pcieRoot: 'resource.kubernetes.io/pcieRoot',
  pciBusID: 'resource.kubernetes.io/pciBusID',
  numaNode: 'resource.kubernetes.io/numaNode',
  /** The NUMA attribute upstream publishes, kept for the DRANET-compatible selectors that use it. */
  draNetNumaNode: 'dra.net/numaNode',
} as const;

/**
 * The discovered attributes of one VF. Topology attributes the kernel does not know are left out rather
 * than published as "" or -1: a placeholder would satisfy presence checks and match unrelated devices.
 */
export function discoveredAttributes(vf: VirtualFunction): Record<string, DeviceAttributeValue> {
  const keys = discoveredAttributeKeys;
  // A VF sits below its PF's root port and memory controller, so the PF's values stand in when the VF's
  // own entries do not say.
  const pcieRoot = vf.pcieRoot ?? vf.pf.pcieRoot;
  const numaNode = vf.numaNode ?? vf.pf.numaNode;
  return {
    [keys.vendor]: { string: vf.vendor },
    [keys.deviceID]: { string: vf.deviceID },
    [keys.pfDeviceID]: { string: vf.pf.deviceID },
    [keys.pciAddress]: { string: vf.pciAddress },
    ...(vf.pf.netdev === undefined ? {} : { [keys.pfName]: { string: vf.pf.netdev } }),
    // A NIC without a devlink eswitch cannot be in switchdev mode; upstream reports such PFs as legacy too.
    [keys.eswitchMode]: { string: vf.pf.eswitchMode ?? 'legacy' },
    [keys.vfID]: { int: vf.vfIndex },
    [keys.pfPciAddress]: { string: vf.pf.pciAddress },
    [keys.linkType]: { string: vf.pf.linkType },
    [keys.rdmaCapable]: { bool: vf.rdmaCapable },
    [keys.multusDeviceID]: { string: vf.pciAddress },
    ...(pcieRoot === undefined ? {} : { [keys.pcieRoot]: { string: pcieRoot } }),
    [keys.pciBusID]: { string: vf.pciAddress },
    ...(numaNode === undefined ? {} : { [keys.numaNode]: { int: numaNode }, [keys.draNetNumaNode]: { int: numaNode } }),
  };
}
