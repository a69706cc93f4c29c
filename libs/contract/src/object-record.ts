import { z } from 'zod';

/** A JSON object: not null, not an array. */
export function isObjectRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A map whose entries the caller reads itself with Object.entries. z.record cannot be used for maps whose
 * keys are user data: it skips a "__proto__" key without an issue, so the key would vanish silently.
 */
export function objectRecordSchema(message: string) {
  return z.custom<Readonly<Record<string, unknown>>>(isObjectRecord, message);
}
