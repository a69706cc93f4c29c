/**
 * A host-side preparation step failed: a sysfs write for a driver binding, the VFIO group lookup, or a
 * CDI spec file. It names
 * the device or claim and the exact path, because the fix is on the node (a missing kernel module, a
 * read-only mount, a full disk) and the operator needs to know where to look.
 */
export type HostOperationCode = 'DriverBindingFailed' | 'VfioGroupUnavailable' | 'CdiSpecFailed';

const REMEDIES: Readonly<Record<HostOperationCode, string>> = {
  DriverBindingFailed: 'check that the kernel driver is loaded (lsmod), that /sys is mounted read-write in the driver container, and the kernel log (dmesg)',
  VfioGroupUnavailable: 'a VF bound to vfio-pci needs an IOMMU group: enable the IOMMU (intel_iommu=on or amd_iommu=on) or load vfio in no-IOMMU mode',
  CdiSpecFailed: 'check that the CDI directory is mounted read-write in the driver container and has free space',
};

export class HostOperationError extends Error {
  override readonly name = 'HostOperationError';
  readonly code: HostOperationCode;
  /** The PCI address or claim UID the step was for. */
  readonly subject: string;
  readonly path: string;

  constructor(code: HostOperationCode, subject: string, path: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} (${path}) \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
    this.path = path;
  }
}

export function isHostOperationError(error: unknown, code?: HostOperationCode): error is HostOperationError {
  return error instanceof HostOperationError && (code === undefined || error.code === code);
}

export function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
