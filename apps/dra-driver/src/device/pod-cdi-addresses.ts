import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';

/**
 * The VF addresses the Pod-wide CDI spec lists: those of every claim of the Pod still prepared on this
 * node (§8.4 step 5). A device whose managed binding reached ReleaseComplete has been cleaned up locally
 * and only waits for API work, so it no longer counts. Claims in UID order, devices in record order, each
 * address once.
 */
export function podCdiAddresses(claimsOfPod: readonly ClaimRecord[]): string[] {
  const ordered = [...claimsOfPod].sort((a, b) => (a.claimUID < b.claimUID ? -1 : a.claimUID > b.claimUID ? 1 : 0));
  const addresses = ordered.flatMap((claim) =>
    claim.devices.filter((device) => device.managedBinding?.phase !== 'ReleaseComplete').map((device) => device.pciAddress),
  );
  return [...new Set(addresses)];
}
