import type { PciFunctionEntries, SriovEntries } from './pci-device.ts';
import { pcieRootOf } from './pcie-root.ts';
import { SysfsError } from './sysfs-error.ts';
import {
  isNetworkClass,
  parseCount,
  parseEntry,
  parseEswitchMode,
  parseLinkType,
  parseNumaNode,
  parseOperstate,
  parseOptionalEntry,
  parsePciClass,
  parsePciId,
} from './sysfs-values.ts';
import type { EswitchMode, LinkType, PhysicalFunction } from './virtual-function.ts';

export type PhysicalFunctionDecision =
  | { readonly kind: 'physical-function'; readonly pf: PhysicalFunction }
  /** Not an SR-IOV network PF (a bridge, a GPU, a VF, an SR-IOV NVMe drive): not discovery's business. */
  | { readonly kind: 'not-a-candidate' }
  | { readonly kind: 'skipped'; readonly error: SysfsError };

const NOT_A_CANDIDATE: PhysicalFunctionDecision = { kind: 'not-a-candidate' };

function skipped(error: SysfsError): PhysicalFunctionDecision {
  return { kind: 'skipped', error };
}

interface Link {
  readonly linkType: LinkType;
  readonly linkUp: boolean;
  readonly eswitchMode: EswitchMode | undefined;
}

/** A PF without a netdev cannot carry its VFs' traffic: its link counts as down and of unknown type. */
const NO_NETDEV: Link = { linkType: 'unknown', linkUp: false, eswitchMode: undefined };

function linkOf(fn: PciFunctionEntries): Link | SysfsError {
  if (fn.netdev === undefined) return NO_NETDEV;
  const linkType = parseEntry(fn.netdev.type, parseLinkType);
  if (!linkType.ok) return linkType.error;
  const linkUp = parseEntry(fn.netdev.operstate, parseOperstate);
  if (!linkUp.ok) return linkUp.error;
  const eswitchMode = parseOptionalEntry(fn.netdev.eswitchMode, parseEswitchMode);
  if (!eswitchMode.ok) return eswitchMode.error;
  return { linkType: linkType.value, linkUp: linkUp.value, eswitchMode: eswitchMode.value };
}

/**
 * Decides whether a PCI function is an SR-IOV network PF and what discovery knows about it. A function is a
 * candidate when the kernel gives it the SR-IOV capability (`sriov_totalvfs`) and a network class; a
 * candidate whose entries cannot be trusted is skipped with the first bad entry named, and its VFs with it.
 */
export function decidePhysicalFunction(fn: PciFunctionEntries, sriov: SriovEntries): PhysicalFunctionDecision {
  const total = sriov.totalVfs.content;
  if (!total.ok && total.error.code === 'SysfsEntryMissing') return NOT_A_CANDIDATE;
  if (fn.kind === 'dangling-link') return skipped(new SysfsError('SysfsDanglingLink', fn.path, 'the device link points at nothing'));
  const pciClass = parseEntry(fn.pciClass, parsePciClass);
  if (!pciClass.ok) return skipped(pciClass.error);
  if (!isNetworkClass(pciClass.value)) return NOT_A_CANDIDATE;

  const totalVfs = parseEntry(sriov.totalVfs, parseCount);
  if (!totalVfs.ok) return skipped(totalVfs.error);
  const numVfs = parseEntry(sriov.numVfs, parseCount);
  if (!numVfs.ok) return skipped(numVfs.error);
  const vendor = parseEntry(fn.vendor, parsePciId);
  if (!vendor.ok) return skipped(vendor.error);
  const deviceID = parseEntry(fn.device, parsePciId);
  if (!deviceID.ok) return skipped(deviceID.error);
  const numaNode = parseOptionalEntry(fn.numaNode, parseNumaNode);
  if (!numaNode.ok) return skipped(numaNode.error);
  const link = linkOf(fn);
  if (link instanceof SysfsError) return skipped(link);

  const pcieRoot = fn.realPath.ok ? pcieRootOf(fn.realPath.value) : undefined;
  return {
    kind: 'physical-function',
    pf: {
      pciAddress: fn.pciAddress,
      ...(fn.netdev === undefined ? {} : { netdev: fn.netdev.name }),
      vendor: vendor.value,
      deviceID: deviceID.value,
      totalVfs: totalVfs.value,
      numVfs: numVfs.value,
      linkType: link.linkType,
      ...(link.eswitchMode === undefined ? {} : { eswitchMode: link.eswitchMode }),
      linkUp: link.linkUp,
      ...(pcieRoot === undefined ? {} : { pcieRoot }),
      ...(numaNode.value === undefined ? {} : { numaNode: numaNode.value }),
    },
  };
}
