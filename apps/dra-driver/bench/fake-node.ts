// The node every driver benchmark runs on: 256 VFs (4 ConnectX-6 PFs × 64 VFs on two PCIe roots) in a
// fake sysfs tree, read by the driver's own discovery.
import { generateFakeSysfs, uniformLayout } from '../../../tools/fake-sysfs/generate.ts';
import { deviceNameOf } from '../src/discovery/device-name.ts';
import { discoverInventory } from '../src/discovery/discover.ts';
import { discoveredAttributes } from '../src/discovery/discovered-attributes.ts';
import { createSysfs } from '../src/discovery/sysfs.ts';
import type { VirtualFunction } from '../src/discovery/virtual-function.ts';
import type { InventoryDevice } from '../src/policy/policy-devices.ts';

/** The node's name, and so the name of its pool. */
export const BENCH_NODE = 'bench-node';
export const NODE_VFS = 256;

/** Writes the tree under `sysfsRoot`. */
export function generateNode(sysfsRoot: string): void {
  generateFakeSysfs(sysfsRoot, uniformLayout({ pfs: 4, vfsPerPf: NODE_VFS / 4 }));
}

/** Discovers the tree and checks that every VF was found, so no figure is measured on a smaller node. */
export async function discoverNode(sysfsRoot: string): Promise<VirtualFunction[]> {
  const inventory = await discoverInventory(createSysfs(sysfsRoot));
  if (!inventory.ok) throw inventory.error;
  const vfs = inventory.value.virtualFunctions;
  if (vfs.length !== NODE_VFS || inventory.value.skipped.length > 0) {
    throw new Error(`discovery found ${vfs.length} VFs and skipped ${inventory.value.skipped.length}; the benchmark needs ${NODE_VFS} and none skipped`);
  }
  return [...vfs];
}

/** The devices policy resolves, as the driver names and describes them. */
export function inventoryOf(vfs: readonly VirtualFunction[]): InventoryDevice[] {
  return vfs.map((vf) => ({ name: deviceNameOf(vf.pciAddress), vf, attributes: discoveredAttributes(vf) }));
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
