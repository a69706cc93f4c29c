import { type Result, fail, isPciAddress, ok } from '@sriov-dra/contract';

/**
 * Canonical BDF for comparison and injection: lowercase, no "pci:" prefix, domain required
 * (0000:03:00.1). A short form without the domain is ambiguous on multi-domain hosts and is rejected.
 */
export function normalizePciAddress(value: string): Result<string> {
  const lower = value.trim().toLowerCase();
  const bare = lower.startsWith('pci:') ? lower.slice(4) : lower;
  if (!isPciAddress(bare)) return fail('InvalidPciAddress', `${JSON.stringify(value)} is not a PCI address of the form 0000:03:00.1`);
  return ok(bare);
}
