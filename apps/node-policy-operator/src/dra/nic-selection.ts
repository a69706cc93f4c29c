import type { ResourceFilter } from '@sriov-dra/contract';
import type { InventoryPf, InventoryVf, NodeInventory } from './node-inventory.ts';
import type { NodePolicy } from './node-policy.ts';

/** The VFs of one node a policy's nicSelector selects, as upstream's Selected and VF-range parsing decide. */
export type NicSelection =
  | { readonly kind: 'selected'; readonly vfs: readonly InventoryVf[]; readonly filters: readonly ResourceFilter[] }
  /** A selector this generator cannot turn into an exact driver filter: nothing is advertised for it. */
  | { readonly kind: 'untranslatable'; readonly reason: string };

type NicSelector = NodePolicy['spec']['nicSelector'];

interface PfNameEntry {
  readonly name: string;
  /** Inclusive VF index range; absent for the whole PF. */
  readonly range?: { readonly first: number; readonly last: number };
}

/** `name` or `name#first-last` (upstream's ParseVfRange); undefined for a range Go's Atoi would refuse. */
function parsePfName(entry: string): PfNameEntry | undefined {
  const [name = '', range] = entry.split('#');
  if (range === undefined) return { name };
  const match = /^([+-]?\d+)-([+-]?\d+)$/.exec(range);
  if (match === null) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  return { name, range: { first, last } };
}

function selects(selector: NicSelector, pf: InventoryPf, pfNames: readonly PfNameEntry[]): boolean {
  if ((selector.vendor ?? '') !== '' && selector.vendor !== pf.vendor) return false;
  if ((selector.deviceID ?? '') !== '' && selector.deviceID !== pf.deviceID) return false;
  const rootDevices = selector.rootDevices ?? [];
  if (rootDevices.length > 0 && !rootDevices.includes(pf.pciAddress)) return false;
  if (pfNames.length > 0 && !pfNames.some((entry) => entry.name === pf.name || pf.altNames.includes(entry.name))) return false;
  return true;
}

const byAddress = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Translates a policy's nicSelector on one node into the VFs it selects and the driver filters that match
 * exactly those VFs: whole PFs by PF PCI address, VF ranges by VF PCI address. Addresses come from the
 * inventory, so the filter cannot match a device the policy did not select — a vendor or device ID alone
 * would also match PFs added later, and PF names can be reused across PCI slots.
 */
export function selectNicVfs(policy: NodePolicy, inventory: NodeInventory): NicSelection {
  const selector = policy.spec.nicSelector;
  if ((selector.netFilter ?? '') !== '') {
    return { kind: 'untranslatable', reason: `nicSelector.netFilter ${JSON.stringify(selector.netFilter)} has no driver filter equivalent` };
  }
  const pfNames: PfNameEntry[] = [];
  for (const entry of selector.pfNames ?? []) {
    const parsed = parsePfName(entry);
    if (parsed === undefined) return { kind: 'untranslatable', reason: `nicSelector.pfNames entry ${JSON.stringify(entry)} has an unreadable VF range` };
    pfNames.push(parsed);
  }
  const wholePfs: string[] = [];
  const rangedVfs: string[] = [];
  const vfs: InventoryVf[] = [];
  for (const pf of inventory.pfs) {
    if (!selects(selector, pf, pfNames)) continue;
    const ranges = pfNames.filter((entry) => entry.name === pf.name || pf.altNames.includes(entry.name));
    // Upstream takes the first matching entry's range; a PF named twice with different ranges is ambiguous.
    const distinct = new Set(ranges.map((entry) => (entry.range === undefined ? '' : `${String(entry.range.first)}-${String(entry.range.last)}`)));
    if (distinct.size > 1) return { kind: 'untranslatable', reason: `nicSelector.pfNames names ${pf.name} with different VF ranges` };
    const range = ranges[0]?.range;
    if (range === undefined) {
      wholePfs.push(pf.pciAddress);
      vfs.push(...pf.vfs);
      continue;
    }
    const inRange = pf.vfs.filter((vf) => vf.vfID >= range.first && vf.vfID <= range.last);
    vfs.push(...inRange);
    rangedVfs.push(...inRange.map((vf) => vf.pciAddress));
  }
  const filters: ResourceFilter[] = [];
  if (wholePfs.length > 0) filters.push({ pfPciAddresses: wholePfs.sort(byAddress) });
  if (rangedVfs.length > 0) filters.push({ pciAddresses: rangedVfs.sort(byAddress) });
  return { kind: 'selected', vfs, filters };
}

/** Whether the policy's nodeSelector (a plain label map, ANDed) selects the node. */
export function policySelectsNode(policy: NodePolicy, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(policy.spec.nodeSelector ?? {}).every(([key, value]) => labels[key] === value);
}
