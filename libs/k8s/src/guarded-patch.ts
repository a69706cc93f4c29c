import { SriovDraError } from '@sriov-dra/contract';
import { type KubeApiError, isApiError, isTransient } from './api-errors.ts';
import { type KubeClient, type KubeObject, contentTypes } from './client.ts';
import { type JsonPatchOp, identityPreconditions } from './json-patch.ts';
import { delay } from './rate-limiter.ts';
import { type Backoff, backoffDelay, conflictBackoff, retriesExhausted } from './retry.ts';
import type { ResourceType } from './resources.ts';

/** The exact object a caller means: a name alone could be a deleted-and-recreated replacement. */
export interface ObjectIdentity {
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
}

/** The live object under the expected name has another UID (code ObjectReplaced); nothing was written. */
function objectReplaced(kind: string, at: ObjectIdentity, actualUID: string): SriovDraError {
  return new SriovDraError('ObjectReplaced', `expected UID ${at.uid}, found ${actualUID}`, {
    object: { kind, namespace: at.namespace, name: at.name, uid: at.uid },
  });
}

export interface GuardedPatchResult<T> {
  readonly object: T;
  /** False when the live object already satisfied the change (nothing was sent). */
  readonly changed: boolean;
  /** Patch requests sent, including ones that lost a race. */
  readonly attempts: number;
}

/**
 * Optimistic-concurrency update of a shared object (§9): read it live, verify it is the expected UID,
 * compute operations from *that* state, and send them behind `test` preconditions on UID and
 * resourceVersion. Someone writing in between (409, or 422 from a failed `test`), a transient failure
 * or a lost response leads to a fresh read and a fresh computation — never a replay of stale operations.
 * `compute` returns no operations when the live object already has the desired state, which also settles
 * a lost response that was in fact applied.
 *
 * A 422 is ambiguous on the wire (a failed `test` and an invalid result share status and reason), so it
 * is told apart by its effect: if the object is still at the resourceVersion the patch was tested
 * against, the preconditions held and the patch itself was rejected — that error is final.
 */
export async function patchGuarded<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  /** With `subresource: 'status'` for a status patch. */
  at: ObjectIdentity & { readonly subresource?: string },
  compute: (live: T) => readonly JsonPatchOp[],
  options: {
    readonly backoff?: Backoff;
    readonly signal?: AbortSignal;
    readonly fieldManager?: string;
    /**
     * The object as the caller read it moments ago: the first attempt patches against it instead of reading
     * again. Its preconditions make a stale copy cost one rejected patch and a re-read, never a lost write.
     */
    readonly current?: T;
    /**
     * Checks that must hold again whenever the object is read again (a retry after a lost race, or a first
     * attempt without `current`): what else the write depends on may have changed in the meantime. A
     * rejection ends the patch before anything is sent.
     */
    readonly revalidate?: (signal?: AbortSignal) => Promise<void>;
  } = {},
): Promise<GuardedPatchResult<T>> {
  const backoff = options.backoff ?? conflictBackoff;
  let rejected: { resourceVersion: string; error: KubeApiError } | undefined;
  let current = options.current;
  // A status patch is read back from the object itself: GET of the object and of its status subresource
  // answer the same object at the same resourceVersion, and a status writer (Multus's patch on pods/status)
  // is granted the object's get, not the subresource's.
  const object = { namespace: at.namespace, name: at.name };
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    if (current === undefined) await options.revalidate?.(options.signal);
    const live = current ?? (await client.get<T>(type, object, options.signal));
    current = undefined;
    if (live.metadata.uid !== at.uid) throw objectReplaced(type.kind, at, live.metadata.uid);
    if (rejected?.resourceVersion === live.metadata.resourceVersion) throw rejected.error;
    const ops = compute(live);
    if (ops.length === 0) return { object: live, changed: false, attempts: attempt - 1 };
    try {
      const object = await client.patch<T>(type, at, [...identityPreconditions(live.metadata), ...ops], contentTypes.jsonPatch, {
        signal: options.signal,
        fieldManager: options.fieldManager,
      });
      return { object, changed: true, attempts: attempt };
    } catch (error) {
      const retryable = isApiError(error, 'Conflict', 'Invalid') || isTransient(error) || (isApiError(error) && error.outcomeUnknown);
      if (!retryable) throw error;
      if (isApiError(error, 'Invalid')) rejected = { resourceVersion: live.metadata.resourceVersion, error };
      if (attempt >= backoff.attempts) throw retriesExhausted(attempt, error);
      await delay(backoffDelay(backoff, attempt), options.signal);
    }
  }
}
