import { z } from 'zod';
import type { ObjectRef } from './errors.ts';
import { labelsSchema, namespaceSchema, objectNameSchema } from './format-schemas.ts';

/**
 * The metadata fields the contract reads from an API object. Loose: the API server adds many fields
 * (uid, managedFields, …) that consumers must carry along untouched.
 */
export const objectMetaSchema = z.looseObject({
  name: objectNameSchema,
  namespace: namespaceSchema.optional(),
  labels: labelsSchema.optional(),
});

/** Longest name an error repeats from an object that failed validation (a DNS subdomain's limit). */
const MAX_REPORTED_NAME = 253;

function reportable(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_REPORTED_NAME ? value : undefined;
}

/**
 * The reference an error about an unvalidated object can name: its kind, plus namespace and name when
 * they are strings of a plausible length, even if they fail validation themselves. Never throws.
 */
export function objectRefOf(kind: string, value: unknown): ObjectRef {
  const metadata = typeof value === 'object' && value !== null ? (value as { metadata?: unknown }).metadata : undefined;
  if (typeof metadata !== 'object' || metadata === null) return { kind };
  const { namespace, name } = metadata as { namespace?: unknown; name?: unknown };
  return { kind, namespace: reportable(namespace), name: reportable(name) };
}
