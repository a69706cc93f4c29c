/** RFC 6902 JSON Patch operations, and the identity preconditions every shared-object write carries. */
export type JsonPatchOp =
  { readonly op: 'test' | 'add' | 'replace'; readonly path: string; readonly value: unknown } | { readonly op: 'remove'; readonly path: string };

/** RFC 6901 escaping: "~" becomes "~0" and "/" becomes "~1" (annotation keys contain "/"). */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function pointer(...tokens: readonly (string | number)[]): string {
  return tokens.map((token) => `/${escapePointerToken(String(token))}`).join('');
}

/**
 * `test` operations pinning the exact object a patch was computed from: the same UID (not a replacement
 * with the same name) at the same resourceVersion (nobody wrote in between). A failed test makes the API
 * server reject the whole patch with 422, so nothing is written.
 */
export function identityPreconditions(metadata: { readonly uid: string; readonly resourceVersion: string }): JsonPatchOp[] {
  return [
    { op: 'test', path: '/metadata/uid', value: metadata.uid },
    { op: 'test', path: '/metadata/resourceVersion', value: metadata.resourceVersion },
  ];
}

/**
 * Operations that bring `metadata.annotations` from `current` to `current` plus `changes` (a null value
 * removes the key). A missing annotations map is created in the same patch, under the same
 * preconditions; keys not mentioned are left alone.
 */
export function annotationChanges(current: Readonly<Record<string, string>> | undefined, changes: Readonly<Record<string, string | null>>): JsonPatchOp[] {
  const entries = Object.entries(changes);
  if (current === undefined) {
    const added = Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== null));
    return Object.keys(added).length === 0 ? [] : [{ op: 'add', path: '/metadata/annotations', value: added }];
  }
  const ops: JsonPatchOp[] = [];
  for (const [key, value] of entries) {
    const path = pointer('metadata', 'annotations', key);
    const exists = Object.hasOwn(current, key);
    if (value === null) {
      if (exists) ops.push({ op: 'remove', path });
    } else if (!exists) {
      ops.push({ op: 'add', path, value });
    } else if (current[key] !== value) {
      ops.push({ op: 'replace', path, value });
    }
  }
  return ops;
}
