/**
 * Whether two JSON-shaped values are equal regardless of object key order. The API server stores an
 * object re-encoded in its own field order, so comparing what a controller would write with what it
 * reads back must ignore order, or an unchanged object is rewritten forever.
 */
export function jsonEqualIgnoringKeyOrder(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([key, member]) => [key, canonical(member)]),
  );
}
