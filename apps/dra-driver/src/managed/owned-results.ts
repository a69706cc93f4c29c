import { type Result, fail, ok } from '@sriov-dra/contract';
import { claimObject } from './claim-reservation.ts';
import type { AllocationResult, ConsumerClaim } from './consumer-objects.ts';

/**
 * The devices this node publishes, as discovery last saw them: the driver publishes one pool per node,
 * named after the node, holding devices named by deviceNameOf(). A device name alone is not a global
 * identity (§6.1 step 7), so a result must match both.
 */
export interface DeviceSnapshot {
  readonly pool: string;
  readonly devices: ReadonlySet<string>;
}

/** One allocation result of this driver that managed networking may attach. */
export interface OwnedResult {
  readonly request: string;
  readonly pool: string;
  readonly device: string;
}

const unsupportedRemedy =
  'managed networking attaches exclusively allocated VFs; remove adminAccess and consumable-capacity sharing from the request, or use manual mode for this claim';

/**
 * §6.1 step 7 and §4.1: the claim's results of this driver, each an exclusive allocation of a device in
 * this node's pool. Results of other drivers (a GPU allocated in the same claim) are theirs and are
 * neither returned nor judged. Admin access (on the result, or on the request it came from) grants a
 * device that other claims may use at the same time, and a shareID or consumed capacity marks one share
 * of a device: none of them is a VF this claim owns alone. Whether the VF may carry a managed network
 * at all (a VfConfig binding it to vfio-pci for DPDK) is decided per device by the binding plan from the
 * effective VfConfig, not here.
 */
export function ownedResults(claim: ConsumerClaim, driverName: string, snapshot: DeviceSnapshot): Result<readonly OwnedResult[]> {
  const adminRequests = new Set(claim.requests.filter((request) => request.adminAccess).map((request) => request.name));
  const owned: OwnedResult[] = [];
  for (const result of claim.allocation?.results ?? []) {
    if (result.driver !== driverName) continue;
    const object = claimObject(claim, `status.allocation.devices.results[${result.request}]`);
    const unsupported = unsupportedSharing(result, adminRequests);
    if (unsupported !== undefined) {
      return fail('UnsupportedManagedClaimKind', `device ${result.pool}/${result.device} is allocated ${unsupported}`, { object, remedy: unsupportedRemedy });
    }
    if (result.pool !== snapshot.pool) {
      return fail('DeviceNotEligible', `device ${result.pool}/${result.device} is in pool ${result.pool}, this node publishes pool ${snapshot.pool}`, {
        object,
      });
    }
    if (!snapshot.devices.has(result.device)) {
      return fail('DeviceNotEligible', `device ${result.pool}/${result.device} is not among the devices this node publishes`, { object });
    }
    owned.push({ request: result.request, pool: result.pool, device: result.device });
  }
  return ok(owned);
}

function unsupportedSharing(result: AllocationResult, adminRequests: ReadonlySet<string>): string | undefined {
  const request = result.request.split('/')[0] ?? result.request;
  if (result.adminAccess) return 'with adminAccess';
  if (adminRequests.has(request)) return `for request ${request}, which asks for adminAccess`;
  if (result.shareID !== undefined) return `as a share (shareID ${result.shareID})`;
  if (result.consumedCapacity.size > 0) return `as a share consuming capacity ${[...result.consumedCapacity.keys()].join(', ')}`;
  return undefined;
}
