import { z } from 'zod';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { interfaceNameSchema, namespaceSchema, shadowNameSchema } from './format-schemas.ts';
import { annotations } from './keys.ts';
import { describeFirstIssue } from './schema-issues.ts';

/**
 * The network selection the driver appends to k8s.v1.cni.cncf.io/networks for one attachment. Only
 * standard Multus fields: the PCI address lives in the shadow's CNI config, never in the selection (§9).
 */
export const generatedSelectionSchema = z.strictObject({
  name: shadowNameSchema,
  namespace: namespaceSchema,
  interface: interfaceNameSchema,
});

export type GeneratedSelection = z.infer<typeof generatedSelectionSchema>;

export function validateGeneratedSelection(
  value: unknown,
  object: ObjectRef = { kind: 'NetworkSelection', field: `annotation ${annotations.networks}` },
): Result<GeneratedSelection> {
  const parsed = generatedSelectionSchema.safeParse(value);
  if (!parsed.success) return fail('InvalidGeneratedSelection', describeFirstIssue(parsed.error), { object });
  return ok(parsed.data);
}

/** Field order name, namespace, interface, as Multus documents its selection elements. */
export function generatedSelectionJSON(selection: GeneratedSelection): Record<string, string> {
  return { name: selection.name, namespace: selection.namespace, interface: selection.interface };
}
