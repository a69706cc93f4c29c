import { type ObjectRef, type Result, fail, isInterfaceName, ok } from '@sriov-dra/contract';

/** One device this driver allocated to the Pod, as seen through one claim alias and request. */
export interface AllocatedDevice {
  /** The Pod's name for the claim (pod.spec.resourceClaims[].name). */
  readonly claimAlias: string;
  readonly claimUID: string;
  /** Request name, or "request/subrequest". */
  readonly request: string;
  readonly pool: string;
  readonly device: string;
  /** VfConfig.ifName that applies to this request, if any. */
  readonly explicitName?: string;
  /** How many devices the request allocated; an explicit name can name only one. */
  readonly requestDeviceCount: number;
}

export interface AssignedInterface {
  readonly claimUID: string;
  readonly pool: string;
  readonly device: string;
  readonly interface: string;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A device with the alias its claim sorts under. */
interface Canonical {
  readonly alias: string;
  readonly device: AllocatedDevice;
}

/**
 * The §6.5 order: canonical claim alias, request, pool, device. The alias as listed breaks the one tie
 * left (a device listed under two aliases of its claim), so which entry is kept — and which rejection
 * is reported first — follows from the allocations alone.
 */
function byOrder(a: Canonical, b: Canonical): number {
  return (
    compare(a.alias, b.alias) ||
    compare(a.device.request, b.device.request) ||
    compare(a.device.pool, b.device.pool) ||
    compare(a.device.device, b.device.device) ||
    compare(a.device.claimAlias, b.device.claimAlias)
  );
}

/**
 * Deterministic interface names (§6.5): every device of a claim sorts under the claim's lexically first
 * alias, physical duplicates collapse (one device seen through several requests or aliases, keeping
 * the first in that order), then devices are ordered by alias, request, pool and device, and the n-th
 * gets `dra<n>` unless it has a valid explicit name. The input is put in that order before anything is
 * decided, so neither the names nor a rejection depend on the order the caller lists devices in — never
 * on RPC order or map iteration — and the names are the same on every retry and restart.
 */
export function assignInterfaceNames(
  devices: readonly AllocatedDevice[],
  options: { primaryInterface?: string; object?: ObjectRef } = {},
): Result<AssignedInterface[]> {
  const { object } = options;
  const primary = options.primaryInterface ?? 'eth0';
  const aliases = new Map<string, string>();
  for (const { claimUID, claimAlias } of devices) {
    const known = aliases.get(claimUID);
    // Stryker disable next-line EqualityOperator: with <= an equal alias replaces itself, which changes nothing.
    if (known === undefined || claimAlias < known) aliases.set(claimUID, claimAlias);
  }
  const ordered = devices.map((device) => ({ alias: aliases.get(device.claimUID) ?? device.claimAlias, device })).sort(byOrder);
  // Insertion order is the sorted order of each device's first (smallest) entry.
  const byDevice = new Map<string, AllocatedDevice>();
  for (const { device: candidate } of ordered) {
    if (candidate.explicitName !== undefined && candidate.requestDeviceCount > 1) {
      return fail(
        'AmbiguousInterfaceName',
        `request ${candidate.request} of claim ${candidate.claimAlias} allocates ${candidate.requestDeviceCount} devices but names one interface ${JSON.stringify(candidate.explicitName)}`,
        { object },
      );
    }
    const key = `${candidate.pool}/${candidate.device}`;
    const seen = byDevice.get(key);
    if (seen === undefined) {
      byDevice.set(key, candidate);
      continue;
    }
    if (seen.claimUID !== candidate.claimUID) {
      return fail('ConflictingDeviceRequirements', `device ${key} is allocated by two claims (${seen.claimAlias}, ${candidate.claimAlias})`, { object });
    }
    if (seen.explicitName !== candidate.explicitName) {
      return fail('ConflictingDeviceRequirements', `requests ${seen.request} and ${candidate.request} ask device ${key} for different interface names`, {
        object,
      });
    }
  }
  const used = new Map<string, string>();
  const assigned: AssignedInterface[] = [];
  for (const [index, device] of [...byDevice.values()].entries()) {
    const name = device.explicitName ?? `dra${index}`;
    const key = `${device.pool}/${device.device}`;
    if (!isInterfaceName(name)) return fail('InvalidInterfaceName', `${JSON.stringify(name)} for device ${key} is not a Linux interface name`, { object });
    if (name === primary) return fail('InvalidInterfaceName', `${name} for device ${key} is the primary interface`, { object });
    const other = used.get(name);
    if (other !== undefined) return fail('DuplicateInterfaceName', `devices ${other} and ${key} both get interface ${name}`, { object });
    used.set(name, key);
    assigned.push({ claimUID: device.claimUID, pool: device.pool, device: device.device, interface: name });
  }
  return ok(assigned);
}
