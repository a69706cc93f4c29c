/**
 * PCI addresses and the names derived from them, shared by the generator and the kernel emulator so that a
 * device rebound by the emulator gets the same netdev name the generator gave it.
 */

export interface Bdf {
  readonly domain: number;
  readonly bus: number;
  readonly device: number;
  readonly fn: number;
}

const BDF = /^([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/;
const PCIE_ROOT = /^pci([0-9a-f]{4}):([0-9a-f]{2})$/;

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

export function formatBdf(bdf: Bdf): string {
  return `${hex(bdf.domain, 4)}:${hex(bdf.bus, 2)}:${hex(bdf.device, 2)}.${bdf.fn}`;
}

export function parseBdf(value: string): Bdf | undefined {
  const match = BDF.exec(value);
  if (match === null) return undefined;
  const [, domain = '', bus = '', device = '', fn = ''] = match;
  const parsed = { domain: parseInt(domain, 16), bus: parseInt(bus, 16), device: parseInt(device, 16), fn: Number(fn) };
  return parsed.device < 32 ? parsed : undefined;
}

/** `pci0000:3a` → domain 0, bus 0x3a: the host bridge whose root bus the root ports sit on. */
export function parsePcieRoot(value: string): { readonly domain: number; readonly bus: number } | undefined {
  const match = PCIE_ROOT.exec(value);
  if (match === null) return undefined;
  const [, domain = '', bus = ''] = match;
  return { domain: parseInt(domain, 16), bus: parseInt(bus, 16) };
}

/** The predictable interface name udev gives a PCI function (`enp59s0f0` for 0000:3b:00.0). */
export function predictableNetdevName(bdf: Bdf): string {
  const domain = bdf.domain === 0 ? '' : `P${bdf.domain}`;
  return `en${domain}p${bdf.bus}s${bdf.device}f${bdf.fn}`;
}

/** The name udev gives a VF netdev when its PF has one (`enp59s0f0v3`). */
export function vfNetdevName(pfNetdev: string, vfIndex: number): string {
  return `${pfNetdev}v${vfIndex}`;
}

/** A locally administered MAC address unique to the function, stable across runs. */
export function macAddressOf(bdf: Bdf): string {
  const bytes = [0x02, bdf.domain & 0xff, bdf.bus, bdf.device, bdf.fn, 0x01];
  return bytes.map((byte) => hex(byte, 2)).join(':');
}
