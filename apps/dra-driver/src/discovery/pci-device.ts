import type { EntryKind, Sysfs } from './sysfs.ts';
import type { SysfsResult } from './sysfs-error.ts';
import { type TextEntry, virtfnIndex } from './sysfs-values.ts';

/**
 * The raw sysfs entries of one PCI function, read but not yet interpreted. Reading is the only effectful
 * step of discovery; deciding what the entries mean (physical-functions.ts, virtual-functions.ts) is pure,
 * so every malformed or missing entry can be tested without a file system.
 */

export interface NetdevEntries {
  readonly name: string;
  /** Absolute path of the interface directory, for messages. */
  readonly path: string;
  readonly type: TextEntry;
  readonly operstate: TextEntry;
  readonly eswitchMode: TextEntry;
}

export interface PciFunctionEntries {
  readonly pciAddress: string;
  /** Absolute path of `bus/pci/devices/<bdf>`, the link every other entry is read through. */
  readonly path: string;
  /** What that link is: a dangling link means the function vanished while it was being read. */
  readonly kind: EntryKind;
  /** Real path of the function below `devices/`. */
  readonly realPath: SysfsResult<string>;
  readonly vendor: TextEntry;
  readonly device: TextEntry;
  readonly pciClass: TextEntry;
  readonly numaNode: TextEntry;
  /** Real path of the bound driver's directory; missing when no driver is bound. */
  readonly driver: SysfsResult<string>;
  /** The function's first network interface (by name), when it has one. */
  readonly netdev: NetdevEntries | undefined;
  readonly rdmaDevices: readonly string[];
}

export interface VirtfnLink {
  readonly index: number;
  /** Absolute path of the `virtfnN` link itself, for messages. */
  readonly path: string;
  /** The link's target as written (`../0000:3b:00.2`); its last element is the VF's address. */
  readonly target: SysfsResult<string>;
  readonly dangling: boolean;
}

export interface SriovEntries {
  readonly totalVfs: TextEntry;
  readonly numVfs: TextEntry;
  readonly virtfns: readonly VirtfnLink[];
}

export function pciDevicePath(pciAddress: string): string {
  return `bus/pci/devices/${pciAddress}`;
}

async function readEntry(sysfs: Sysfs, relative: string): Promise<TextEntry> {
  return { path: sysfs.describe(relative), content: await sysfs.readText(relative) };
}

async function listOrEmpty(sysfs: Sysfs, relative: string): Promise<string[]> {
  const names = await sysfs.list(relative);
  return names.ok ? names.value : [];
}

async function readNetdev(sysfs: Sysfs, base: string): Promise<NetdevEntries | undefined> {
  const [name] = await listOrEmpty(sysfs, `${base}/net`);
  if (name === undefined) return undefined;
  const dir = `${base}/net/${name}`;
  const [type, operstate, eswitchMode] = await Promise.all([
    readEntry(sysfs, `${dir}/type`),
    readEntry(sysfs, `${dir}/operstate`),
    readEntry(sysfs, `${dir}/compat/devlink/mode`),
  ]);
  return { name, path: sysfs.describe(dir), type, operstate, eswitchMode };
}

export async function readPciFunction(sysfs: Sysfs, pciAddress: string): Promise<PciFunctionEntries> {
  const base = pciDevicePath(pciAddress);
  const [kind, realPath, vendor, device, pciClass, numaNode, driver, netdev, rdmaDevices] = await Promise.all([
    sysfs.kind(base),
    sysfs.resolve(base),
    readEntry(sysfs, `${base}/vendor`),
    readEntry(sysfs, `${base}/device`),
    readEntry(sysfs, `${base}/class`),
    readEntry(sysfs, `${base}/numa_node`),
    sysfs.resolve(`${base}/driver`),
    readNetdev(sysfs, base),
    listOrEmpty(sysfs, `${base}/infiniband`),
  ]);
  return { pciAddress, path: sysfs.describe(base), kind, realPath, vendor, device, pciClass, numaNode, driver, netdev, rdmaDevices };
}

/**
 * The SR-IOV capability entries; undefined for a function without the capability (no `sriov_totalvfs`),
 * which is most functions on the bus, VFs included: the rest of their entries is not read.
 */
export async function readSriovEntries(sysfs: Sysfs, pciAddress: string): Promise<SriovEntries | undefined> {
  const base = pciDevicePath(pciAddress);
  const totalVfs = await readEntry(sysfs, `${base}/sriov_totalvfs`);
  if (!totalVfs.content.ok && totalVfs.content.error.code === 'SysfsEntryMissing') return undefined;
  const [numVfs, entries] = await Promise.all([readEntry(sysfs, `${base}/sriov_numvfs`), listOrEmpty(sysfs, base)]);
  const links = entries.flatMap((entry) => {
    const index = virtfnIndex(entry);
    return index === undefined ? [] : [{ index, relative: `${base}/${entry}` }];
  });
  const virtfns = await Promise.all(
    links.map(async ({ index, relative }) => {
      const [target, kind] = await Promise.all([sysfs.readLink(relative), sysfs.kind(relative)]);
      return { index, path: sysfs.describe(relative), target, dangling: kind === 'dangling-link' };
    }),
  );
  return { totalVfs, numVfs, virtfns: virtfns.sort((a, b) => a.index - b.index) };
}
