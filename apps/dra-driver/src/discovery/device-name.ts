/**
 * The DRA device name of a VF: its PCI address with ':' and '.' replaced by '-' (`0000:3b:02.0` →
 * `0000-3b-02-0`), as the upstream driver names them. Device names must be DNS labels, and keeping the
 * upstream spelling keeps claims and checkpoints portable between the two drivers.
 */
export function deviceNameOf(pciAddress: string): string {
  return pciAddress.replace(/[:.]/g, '-');
}
