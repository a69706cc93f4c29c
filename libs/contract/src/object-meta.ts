import { z } from 'zod';
import { namespaceSchema, objectNameSchema } from './format-schemas.ts';

/**
 * The metadata fields the contract reads from an API object. Loose: the API server adds many fields
 * (uid, managedFields, …) that consumers must carry along untouched.
 */
export const objectMetaSchema = z.looseObject({
  name: objectNameSchema,
  namespace: namespaceSchema.optional(),
  labels: z.record(z.string(), z.string()).optional(),
});
