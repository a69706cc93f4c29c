import { isPciAddress } from '@sriov-dra/contract';
import { readPciFunction, readSriovEntries } from './pci-device.ts';
import { decidePhysicalFunction } from './physical-functions.ts';
import type { Sysfs } from './sysfs.ts';
import { type SysfsError, type SysfsResult, found } from './sysfs-error.ts';
import { decideVirtualFunction, virtfnAddress } from './virtual-functions.ts';
import type { PhysicalFunction, VirtualFunction } from './virtual-function.ts';

/** A device discovery saw but could not describe; its error names the sysfs entry at fault. */
export interface SkippedDevice {
  /** The device's PCI address, when even that could not be read (a dangling `virtfnN` link) absent. */
  readonly pciAddress: string | undefined;
  readonly error: SysfsError;
}

/** One complete reading of the node's SR-IOV hardware. */
export interface Inventory {
  readonly physicalFunctions: readonly PhysicalFunction[];
  /** Sorted by PCI address. */
  readonly virtualFunctions: readonly VirtualFunction[];
  readonly skipped: readonly SkippedDevice[];
}

const byAddress = <T extends { readonly pciAddress: string }>(a: T, b: T): number => (a.pciAddress < b.pciAddress ? -1 : a.pciAddress > b.pciAddress ? 1 : 0);

/**
 * PCI functions whose entries are read at the same time. Each function is a dozen file operations, and
 * libuv serves them on four threads: reading all of a full node's functions at once (hundreds) is no
 * faster, but keeps their handles, buffers, paths and results alive across many young-generation
 * collections, which promoted some 20 MiB of short-lived objects into the old generation on every scan.
 */
const FUNCTIONS_IN_FLIGHT = 8;

/** Runs the tasks given to it at most `limit` at a time, in the order they were given. */
function concurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      // A waiting task inherits the slot; only when none waits is it given back.
      const next = waiting.shift();
      if (next === undefined) running -= 1;
      else next();
    }
  };
}

type Limit = ReturnType<typeof concurrencyLimit>;

async function discoverPhysicalFunction(
  sysfs: Sysfs,
  pciAddress: string,
  limit: Limit,
): Promise<{ pf?: PhysicalFunction; vfs: VirtualFunction[]; skipped: SkippedDevice[] }> {
  const sriov = await limit(() => readSriovEntries(sysfs, pciAddress));
  if (sriov === undefined) return { vfs: [], skipped: [] };
  const decision = decidePhysicalFunction(await limit(() => readPciFunction(sysfs, pciAddress)), sriov);
  if (decision.kind === 'not-a-candidate') return { vfs: [], skipped: [] };
  if (decision.kind === 'skipped') return { vfs: [], skipped: [{ pciAddress, error: decision.error }] };
  const { pf } = decision;
  const vfs: VirtualFunction[] = [];
  const skipped: SkippedDevice[] = [];
  await Promise.all(
    sriov.virtfns.map(async (link) => {
      const address = virtfnAddress(link);
      const fn = address === undefined || link.dangling ? undefined : await limit(() => readPciFunction(sysfs, address));
      const outcome = decideVirtualFunction(link, fn, pf);
      if (outcome.kind === 'virtual-function') vfs.push(outcome.vf);
      else skipped.push({ pciAddress: outcome.pciAddress, error: outcome.error });
    }),
  );
  return { pf, vfs, skipped };
}

/**
 * Reads every SR-IOV network PF on the PCI bus and the VFs its `virtfnN` links name. A device whose entries
 * are missing or malformed is listed in `skipped` and never stops the others; only an unreadable PCI bus
 * fails the whole scan.
 */
export async function discoverInventory(sysfs: Sysfs): Promise<SysfsResult<Inventory>> {
  const listed = await sysfs.list('bus/pci/devices');
  if (!listed.ok) return listed;
  const limit = concurrencyLimit(FUNCTIONS_IN_FLIGHT);
  const results = await Promise.all(listed.value.filter(isPciAddress).map((address) => discoverPhysicalFunction(sysfs, address, limit)));
  return found({
    physicalFunctions: results.flatMap(({ pf }) => (pf === undefined ? [] : [pf])).sort(byAddress),
    virtualFunctions: results.flatMap(({ vfs }) => vfs).sort(byAddress),
    skipped: results.flatMap(({ skipped }) => skipped),
  });
}
