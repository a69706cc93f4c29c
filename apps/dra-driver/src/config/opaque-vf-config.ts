import { DRIVER_NAME, type ObjectRef, type Result, type VfConfig, fail, ok, validateVfConfig } from '@sriov-dra/contract';

/** One `opaque` entry of a DeviceClass or ResourceClaim config, as found in the allocation result. */
export interface OpaqueDeviceConfig {
  readonly driver: string;
  readonly parameters: unknown;
}

function isOpaqueDeviceConfig(value: unknown): value is OpaqueDeviceConfig {
  return typeof value === 'object' && value !== null && typeof (value as { driver?: unknown }).driver === 'string';
}

/**
 * Decodes the VfConfig carried by an opaque config entry. Entries for other drivers (a GPU driver in the
 * same claim, say) are not ours to judge and yield null; ours must decode strictly (§5.2). The entry
 * comes from an API object, so one without a driver name is an error rather than "someone else's".
 */
export function vfConfigFromOpaque(opaque: OpaqueDeviceConfig, object?: ObjectRef): Result<VfConfig | null> {
  const entry: unknown = opaque;
  if (!isOpaqueDeviceConfig(entry)) return fail('InvalidVfConfig', 'an opaque config entry has no driver name', { object });
  if (entry.driver !== DRIVER_NAME) return ok(null);
  return validateVfConfig(entry.parameters, object);
}
