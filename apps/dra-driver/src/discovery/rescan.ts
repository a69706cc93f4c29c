import type { Inventory } from './discover.ts';
import { discoveredAttributes } from './discovered-attributes.ts';
import { deviceNameOf } from './device-name.ts';
import type { VirtualFunction } from './virtual-function.ts';

/**
 * What changed between two scans, decided purely from the two readings. Health follows the kubelet's
 * device health model: a device is Healthy or Unhealthy, and an unhealthy device says why.
 */

export type UnhealthyReason =
  /** The VF is no longer on the PCI bus (VFs disabled, PF reset, hot-unplug). */
  | 'VirtualFunctionMissing'
  /** The VF is still present but its entries cannot be read or parsed; the skip error says which. */
  | 'VirtualFunctionUnreadable'
  /** The PF's link is down or the PF has no netdev: the VF cannot carry traffic. */
  | 'PhysicalFunctionLinkDown';

export type DeviceHealth = { readonly status: 'Healthy' } | { readonly status: 'Unhealthy'; readonly reason: UnhealthyReason; readonly message: string };

export interface HealthChange {
  /** DRA device name. */
  readonly device: string;
  readonly pciAddress: string;
  /** Absent for a device seen for the first time. */
  readonly previous: DeviceHealth | undefined;
  readonly current: DeviceHealth;
}

export interface InventoryChanges {
  readonly added: readonly VirtualFunction[];
  /** Devices of the previous scan missing from this one, as they were last seen. */
  readonly removed: readonly VirtualFunction[];
  /** Devices whose published attributes, driver or netdev changed. */
  readonly changed: readonly VirtualFunction[];
}

/** What a scanner carries from one scan to the next. */
export interface ScanState {
  readonly inventory: Inventory;
  /** Health of every device ever seen, by device name; a vanished device stays here as Unhealthy. */
  readonly health: ReadonlyMap<string, DeviceHealth>;
  /** The last description of every device ever seen, so a vanished device can still be named. */
  readonly lastSeen: ReadonlyMap<string, VirtualFunction>;
}

export interface ScanDiff {
  readonly state: ScanState;
  readonly inventoryChanges: InventoryChanges;
  readonly healthChanges: readonly HealthChange[];
}

export const INITIAL_SCAN_STATE: ScanState = {
  inventory: { physicalFunctions: [], virtualFunctions: [], skipped: [] },
  health: new Map(),
  lastSeen: new Map(),
};

const HEALTHY: DeviceHealth = { status: 'Healthy' };

function healthOf(vf: VirtualFunction): DeviceHealth {
  if (vf.pf.linkUp) return HEALTHY;
  const detail = vf.pf.netdev === undefined ? 'has no netdev' : `link ${vf.pf.netdev} is down`;
  return { status: 'Unhealthy', reason: 'PhysicalFunctionLinkDown', message: `PF ${vf.pf.pciAddress} ${detail}` };
}

function sameHealth(a: DeviceHealth | undefined, b: DeviceHealth): boolean {
  if (a === undefined || a.status !== b.status) return false;
  return a.status === 'Healthy' || (b.status === 'Unhealthy' && a.reason === b.reason && a.message === b.message);
}

/** Everything of a VF that a consumer acts on: the published attributes, the binding, the netdev. */
function fingerprint(vf: VirtualFunction): string {
  return JSON.stringify([discoveredAttributes(vf), vf.driver ?? null, vf.netdev ?? null, vf.pf.linkUp]);
}

export function diffScans(previous: ScanState, next: Inventory): ScanDiff {
  const before = new Map(previous.inventory.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
  const after = new Map(next.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf]));
  const skippedNow = new Map(next.skipped.flatMap((skip) => (skip.pciAddress === undefined ? [] : [[deviceNameOf(skip.pciAddress), skip.error]])));

  const health = new Map(previous.health);
  const lastSeen = new Map(previous.lastSeen);
  for (const [name, vf] of after) {
    health.set(name, healthOf(vf));
    lastSeen.set(name, vf);
  }
  for (const [name, vf] of lastSeen) {
    if (after.has(name)) continue;
    const error = skippedNow.get(name);
    health.set(
      name,
      error === undefined
        ? { status: 'Unhealthy', reason: 'VirtualFunctionMissing', message: `VF ${vf.pciAddress} is no longer on the PCI bus` }
        : { status: 'Unhealthy', reason: 'VirtualFunctionUnreadable', message: error.message },
    );
  }

  const healthChanges: HealthChange[] = [];
  for (const [name, current] of health) {
    const prior = previous.health.get(name);
    if (sameHealth(prior, current)) continue;
    const vf = lastSeen.get(name);
    if (vf !== undefined) healthChanges.push({ device: name, pciAddress: vf.pciAddress, previous: prior, current });
  }

  return {
    state: { inventory: next, health, lastSeen },
    inventoryChanges: {
      added: next.virtualFunctions.filter((vf) => !before.has(deviceNameOf(vf.pciAddress))),
      removed: previous.inventory.virtualFunctions.filter((vf) => !after.has(deviceNameOf(vf.pciAddress))),
      changed: next.virtualFunctions.filter((vf) => {
        const old = before.get(deviceNameOf(vf.pciAddress));
        return old !== undefined && fingerprint(old) !== fingerprint(vf);
      }),
    },
    healthChanges: healthChanges.sort((a, b) => (a.pciAddress < b.pciAddress ? -1 : 1)),
  };
}
