import { z } from 'zod';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { isDns1123Label, isDns1123Subdomain, isInterfaceName } from './formats.ts';
import { DRIVER_API_VERSION } from './keys.ts';
import { describeFirstIssue } from './schema-issues.ts';

export const VF_CONFIG_KIND = 'VfConfig';

/** "" keeps the current binding, "default" restores the kernel driver, anything else is a driver name. */
const kernelDriverSchema = z
  .string()
  .refine((value) => value === '' || /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(value), 'must be "", "default" or a kernel driver name such as vfio-pci');

// The upstream API uses plain Go strings, so "" is the same as an omitted field.
const optional = (check: (value: string) => boolean, message: string) =>
  z
    .string()
    .refine((value) => value === '' || check(value), message)
    .optional();

/**
 * VfConfig opaque parameters (DeviceClass or ResourceClaim config for this driver). Strict: a misspelled
 * field must fail the claim rather than be ignored.
 */
export const vfConfigSchema = z.strictObject({
  apiVersion: z.literal(DRIVER_API_VERSION),
  kind: z.literal(VF_CONFIG_KIND),
  driver: kernelDriverSchema.optional(),
  addVhostMount: z.boolean().optional(),
  ifName: optional(isInterfaceName, 'must be a Linux interface name of 1-15 bytes'),
  netAttachDefName: optional(isDns1123Subdomain, 'must be a NAD name (DNS-1123 subdomain)'),
  netAttachDefNamespace: optional(isDns1123Label, 'must be a namespace name (DNS-1123 label)'),
});

export type VfConfig = z.infer<typeof vfConfigSchema>;

export function validateVfConfig(parameters: unknown, object: ObjectRef = { kind: VF_CONFIG_KIND }): Result<VfConfig> {
  const parsed = vfConfigSchema.safeParse(parameters);
  if (!parsed.success) return fail('InvalidVfConfig', describeFirstIssue(parsed.error), { object });
  return ok(parsed.data);
}
