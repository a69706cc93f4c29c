import { DRIVER_NAME, type ObjectRef, type Result, type VfConfig, ok, validateVfConfig } from '@sriov-dra/contract';

/** One `opaque` entry of a DeviceClass or ResourceClaim config, as found in the allocation result. */
export interface OpaqueDeviceConfig {
  readonly driver: string;
  readonly parameters: unknown;
}

/**
 * Decodes the VfConfig carried by an opaque config entry. Entries for other drivers (a GPU driver in the
 * same claim, say) are not ours to judge and yield null; ours must decode strictly (§5.2).
 */
export function vfConfigFromOpaque(opaque: OpaqueDeviceConfig, object?: ObjectRef): Result<VfConfig | null> {
  if (opaque.driver !== DRIVER_NAME) return ok(null);
  return validateVfConfig(opaque.parameters, object);
}
