import { z } from 'zod';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { labelKeySchema, labelValueSchema, labelsSchema, pciAddressSchema } from './format-schemas.ts';
import { DRIVER_API_VERSION } from './keys.ts';
import { objectMetaSchema, objectRefOf } from './object-meta.ts';
import { describeFirstIssue } from './schema-issues.ts';

export const SRIOV_RESOURCE_POLICY_KIND = 'SriovResourcePolicy';

/**
 * Names the driver compares by equality (PF netdevs, kernel drivers): bounded like a DRA string, wide
 * enough for an interface name plus the "#first-last" suffix that is then rejected with its own code.
 */
const matchName = z.string().min(1).max(64);

const hex4 = z.string().regex(/^[0-9a-f]{4}$/, 'must be a 4-digit lowercase hexadecimal PCI ID');

const selectorRequirement = z.strictObject({
  key: labelKeySchema,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: z.array(labelValueSchema).optional(),
});

/** Keys and values follow the label rules, so a selector can only name what a label can carry. */
export const labelSelectorSchema = z.strictObject({
  matchLabels: labelsSchema.optional(),
  matchExpressions: z.array(selectorRequirement).optional(),
});

const nodeSelectorRequirement = z.strictObject({
  key: labelKeySchema,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
  values: z.array(labelValueSchema).optional(),
});

/**
 * Only matchExpressions select nodes in the driver; matchFields would be silently ignored there, so
 * the contract has no such field and a policy that uses one is rejected.
 */
export const nodeSelectorSchema = z.strictObject({
  nodeSelectorTerms: z.array(z.strictObject({ matchExpressions: z.array(nodeSelectorRequirement).optional() })),
});

/** Fields are ANDed within a filter; filters are ORed; an empty filter list matches every device. */
export const resourceFilterSchema = z.strictObject({
  vendors: z.array(hex4).optional(),
  devices: z.array(hex4).optional(),
  pciAddresses: z.array(pciAddressSchema).optional(),
  pfNames: z.array(matchName).optional(),
  pfPciAddresses: z.array(pciAddressSchema).optional(),
  drivers: z.array(matchName).optional(),
  linkType: z.enum(['eth', 'ethernet', 'ib', 'infiniband']).optional(),
});

export type ResourceFilter = z.infer<typeof resourceFilterSchema>;

export const sriovResourcePolicySpecSchema = z.strictObject({
  nodeSelector: nodeSelectorSchema.nullable().optional(),
  configs: z
    .array(
      z.strictObject({
        deviceAttributesSelector: labelSelectorSchema.nullable().optional(),
        resourceFilters: z.array(resourceFilterSchema).optional(),
      }),
    )
    .optional(),
});

export const sriovResourcePolicySchema = z.looseObject({
  apiVersion: z.literal(DRIVER_API_VERSION),
  kind: z.literal(SRIOV_RESOURCE_POLICY_KIND),
  metadata: objectMetaSchema,
  spec: sriovResourcePolicySpecSchema,
});

export type SriovResourcePolicySpec = z.infer<typeof sriovResourcePolicySpecSchema>;

export interface SriovResourcePolicy {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly spec: SriovResourcePolicySpec;
}

/**
 * Filters the upstream driver accepts but does not implement, or implements with a syntax managed mode
 * cannot translate safely (§5.3): they would widen a match, so they are rejected outright.
 */
function unsupportedFilter(filter: ResourceFilter): string | undefined {
  if (filter.drivers !== undefined && filter.drivers.length > 0) return 'drivers filters are not implemented by device selection';
  const ranged = filter.pfNames?.find((name) => name.includes('#'));
  if (ranged !== undefined) return `pfNames entry ${JSON.stringify(ranged)} uses the unsupported name#first-last VF range syntax`;
  return undefined;
}

export function validateSriovResourcePolicy(value: unknown): Result<SriovResourcePolicy> {
  const parsed = sriovResourcePolicySchema.safeParse(value);
  if (!parsed.success) {
    return fail('InvalidSriovResourcePolicy', describeFirstIssue(parsed.error), { object: objectRefOf(SRIOV_RESOURCE_POLICY_KIND, value) });
  }
  const { metadata, spec } = parsed.data;
  const object: ObjectRef = { kind: SRIOV_RESOURCE_POLICY_KIND, namespace: metadata.namespace, name: metadata.name };
  // Stryker disable next-line ArrayDeclaration: a non-empty fallback holds strings, which have no resourceFilters, so nothing is checked either way
  for (const [configIndex, config] of (spec.configs ?? []).entries()) {
    // Stryker disable next-line ArrayDeclaration: a string in place of a filter has no drivers or pfNames, so it is never unsupported
    for (const [filterIndex, filter] of (config.resourceFilters ?? []).entries()) {
      const problem = unsupportedFilter(filter);
      if (problem !== undefined) {
        return fail('UnsupportedManagedSelector', `configs[${configIndex}].resourceFilters[${filterIndex}]: ${problem}`, { object });
      }
    }
  }
  return ok({ name: metadata.name, namespace: metadata.namespace, spec });
}
