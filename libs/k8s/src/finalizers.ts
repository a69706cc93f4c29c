import { isApiError } from './api-errors.ts';
import type { KubeClient, KubeObject } from './client.ts';
import { type ObjectIdentity, patchGuarded } from './guarded-patch.ts';
import { pointer } from './json-patch.ts';
import type { Backoff } from './retry.ts';
import type { ResourceType } from './resources.ts';

/** How a finalizer obligation ended: removed now, already absent, or the object no longer exists. */
export type FinalizerRemoval = 'removed' | 'absent' | 'gone';

/**
 * Removes exactly one finalizer from exactly one object (§8.4 step 7): UID- and resourceVersion-checked
 * JSON Patch on the main resource, testing the entry's value at its index so a concurrent reorder cannot
 * remove someone else's finalizer. Foreign finalizers are never touched. NotFound means the obligation is
 * complete; a lost response is settled by the re-read.
 */
export async function removeFinalizer(
  client: KubeClient,
  type: ResourceType,
  at: ObjectIdentity,
  finalizer: string,
  options: {
    readonly backoff?: Backoff;
    readonly signal?: AbortSignal;
    /** The object as the caller last saw it (e.g. a DELETE response): the first patch is tested against it instead of a fresh read. */
    readonly current?: KubeObject;
    /**
     * Called with every state of the object a patch is built from (`current` and each re-read); throws to
     * refuse one that is no longer what the caller verified — another writer may change it between reads.
     */
    readonly verify?: (live: KubeObject) => void;
  } = {},
): Promise<FinalizerRemoval> {
  try {
    const result = await patchGuarded<KubeObject>(
      client,
      type,
      at,
      (live) => {
        options.verify?.(live);
        const index = (live.metadata.finalizers ?? []).indexOf(finalizer);
        if (index < 0) return [];
        const path = pointer('metadata', 'finalizers', index);
        return [
          { op: 'test', path, value: finalizer },
          { op: 'remove', path },
        ];
      },
      options,
    );
    return result.changed ? 'removed' : 'absent';
  } catch (error) {
    if (isApiError(error, 'NotFound')) return 'gone';
    throw error;
  }
}
