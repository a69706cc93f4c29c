import { type JsonPatchOp, pointer } from '@sriov-dra/k8s';

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strayKeys(actual: unknown, desired: unknown, path: readonly string[]): JsonPatchOp[] {
  if (!isMap(actual) || !isMap(desired)) return [];
  return Object.entries(actual).flatMap(([key, value]) =>
    Object.hasOwn(desired, key) ? strayKeys(value, desired[key], [...path, key]) : [{ op: 'remove' as const, path: pointer(...path, key) }],
  );
}

/**
 * The operations removing what a generated object carries beyond its desired body: map keys under spec and
 * metadata.labels that another manager added. A forced apply takes back every field the operator sets, but
 * a key only someone else set is theirs and survives it — an added netAttachDefName pair on an
 * attributes-only policy's object would still be published. Lists and atomic maps need nothing here: the
 * forced apply replaced them whole.
 */
export function foreignFields(actual: Record<string, unknown>, desired: Record<string, unknown>): JsonPatchOp[] {
  const labels = (object: Record<string, unknown>): unknown => (isMap(object['metadata']) ? object['metadata']['labels'] : undefined);
  return [...strayKeys(labels(actual), labels(desired), ['metadata', 'labels']), ...strayKeys(actual['spec'], desired['spec'], ['spec'])];
}
