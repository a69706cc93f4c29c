import { isPciAddress } from '@sriov-dra/contract';
import type { PciFunctionEntries, VirtfnLink } from './pci-device.ts';
import { pcieRootOf } from './pcie-root.ts';
import { SysfsError } from './sysfs-error.ts';
import { parseEntry, parseNumaNode, parseOptionalEntry, parsePciId } from './sysfs-values.ts';
import type { PhysicalFunction, VirtualFunction } from './virtual-function.ts';

export type VirtualFunctionDecision =
  | { readonly kind: 'virtual-function'; readonly vf: VirtualFunction }
  | { readonly kind: 'skipped'; readonly pciAddress: string | undefined; readonly error: SysfsError };

/** The VF address a `virtfnN` link names (`../0000:3b:00.2` → `0000:3b:00.2`), if it is a canonical BDF. */
export function virtfnAddress(link: VirtfnLink): string | undefined {
  if (!link.target.ok) return undefined;
  const last = link.target.value.split('/').at(-1) ?? '';
  return isPciAddress(last) ? last : undefined;
}

/**
 * Decides what discovery knows about the VF behind one `virtfnN` link of `pf`. `fn` holds the VF's own
 * entries, read through `bus/pci/devices/<vf>`; it is absent when the link did not name a VF address.
 */
export function decideVirtualFunction(link: VirtfnLink, fn: PciFunctionEntries | undefined, pf: PhysicalFunction): VirtualFunctionDecision {
  const pciAddress = virtfnAddress(link);
  const skipped = (error: SysfsError): VirtualFunctionDecision => ({ kind: 'skipped', pciAddress, error });
  if (!link.target.ok) return skipped(link.target.error);
  if (link.dangling) return skipped(new SysfsError('SysfsDanglingLink', link.path, `points at ${link.target.value}, which does not exist`));
  if (fn === undefined) return skipped(new SysfsError('MalformedSysfsValue', link.path, `points at ${link.target.value}, which is not a PCI address`));
  if (fn.kind === 'dangling-link') return skipped(new SysfsError('SysfsDanglingLink', fn.path, 'the device link points at nothing'));
  if (fn.kind === 'missing') return skipped(new SysfsError('SysfsEntryMissing', fn.path, `the VF named by ${link.path} is not on the PCI bus`));

  const vendor = parseEntry(fn.vendor, parsePciId);
  if (!vendor.ok) return skipped(vendor.error);
  const deviceID = parseEntry(fn.device, parsePciId);
  if (!deviceID.ok) return skipped(deviceID.error);
  const numaNode = parseOptionalEntry(fn.numaNode, parseNumaNode);
  if (!numaNode.ok) return skipped(numaNode.error);
  // No driver link is the normal state of an unbound VF; any other failure leaves the binding unknown.
  if (!fn.driver.ok && fn.driver.error.code !== 'SysfsEntryMissing') return skipped(fn.driver.error);
  const driver = fn.driver.ok ? fn.driver.value.split('/').at(-1) : undefined;

  const pcieRoot = fn.realPath.ok ? pcieRootOf(fn.realPath.value) : undefined;
  return {
    kind: 'virtual-function',
    vf: {
      pciAddress: fn.pciAddress,
      vfIndex: link.index,
      pf,
      vendor: vendor.value,
      deviceID: deviceID.value,
      ...(driver === undefined ? {} : { driver }),
      ...(fn.netdev === undefined ? {} : { netdev: fn.netdev.name }),
      ...(pcieRoot === undefined ? {} : { pcieRoot }),
      ...(numaNode.value === undefined ? {} : { numaNode: numaNode.value }),
      rdmaCapable: fn.rdmaDevices.length > 0,
    },
  };
}
