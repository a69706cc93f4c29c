import { z } from 'zod';
import { draLimits, isSemver } from './formats.ts';

/**
 * Integers arrive through JSON.parse, which silently rounds beyond 2^53. Rejecting them is the only way
 * to guarantee the published value equals the written one.
 */
export const draIntSchema = z.number().refine(Number.isSafeInteger, 'must be an integer within ±(2^53-1)');
export const draStringSchema = z.string().max(draLimits.stringValueMaxLength, `must be at most ${draLimits.stringValueMaxLength} characters`);
export const draVersionSchema = z.string().refine(isSemver, `must be a semantic version 2.0.0 of at most ${draLimits.versionValueMaxLength} characters`);

function exactlyOneMember(value: Record<string, unknown>): boolean {
  return Object.values(value).filter((member) => member !== undefined).length === 1;
}

const EXACTLY_ONE = 'must set exactly one value member';

/** The operator's scalar union (§12.2.1): int, bool, string or version; zero and false count as set. */
export const draScalarValueSchema = z
  .strictObject({
    int: draIntSchema.optional(),
    bool: z.boolean().optional(),
    string: draStringSchema.optional(),
    version: draVersionSchema.optional(),
  })
  .refine(exactlyOneMember, EXACTLY_ONE);

export type DraScalarValue = z.infer<typeof draScalarValueSchema>;

/** A DeviceAttributes value: the scalar members plus the upstream list members. */
export const deviceAttributeValueSchema = z
  .strictObject({
    int: draIntSchema.optional(),
    bool: z.boolean().optional(),
    string: draStringSchema.optional(),
    version: draVersionSchema.optional(),
    ints: z.array(draIntSchema).optional(),
    bools: z.array(z.boolean()).optional(),
    strings: z.array(draStringSchema).optional(),
    versions: z.array(draVersionSchema).optional(),
  })
  .refine(exactlyOneMember, EXACTLY_ONE);

export type DeviceAttributeValue = z.infer<typeof deviceAttributeValueSchema>;
