import { z } from 'zod';
import { draLimits, isSemver, utf8Length } from './formats.ts';

/**
 * Integers arrive through JSON.parse, which silently rounds beyond 2^53. Rejecting them is the only way
 * to guarantee the published value equals the written one.
 */
export const draIntSchema = z.number().refine(Number.isSafeInteger, 'must be an integer within ±(2^53-1)');
/** The API server measures DRA strings in UTF-8 bytes (Go len), so "é" costs two of the 64. */
export const draStringSchema = z
  .string()
  .refine((value) => utf8Length(value) <= draLimits.stringValueMaxLength, `must be at most ${draLimits.stringValueMaxLength} bytes in UTF-8`);
export const draVersionSchema = z.string().refine(isSemver, `must be a semantic version 2.0.0 of at most ${draLimits.versionValueMaxLength} bytes`);

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
