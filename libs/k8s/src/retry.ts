import { SriovDraError } from '@sriov-dra/contract';
import { errorMessage } from './api-errors.ts';
import { delay } from './rate-limiter.ts';

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  /** Fraction of each delay added at random, so that contending writers spread out. */
  readonly jitter: number;
  /** Attempts in all, the first included. */
  readonly attempts: number;
}

/** Conflict retries: short and few, since each retry re-reads the live object first. */
export const conflictBackoff: Backoff = { initialMs: 10, maxMs: 1_000, factor: 2, jitter: 0.5, attempts: 8 };

/** The delay before retry number `retry` (1-based). */
export function backoffDelay(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * backoff.factor ** (retry - 1));
  return base * (1 + backoff.jitter * random());
}

/** The attempt budget ran out (code RetriesExhausted); the last failure is the cause. */
export function retriesExhausted(attempts: number, cause: unknown): SriovDraError {
  return new SriovDraError('RetriesExhausted', `gave up after ${attempts} attempts: ${errorMessage(cause)}`, { cause });
}

/**
 * Runs `attempt` until it succeeds, throws an error `retryable` rejects, the attempts run out
 * (RetriesExhausted carrying the last error) or the signal aborts.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: { readonly backoff: Backoff; readonly retryable: (error: unknown) => boolean; readonly signal?: AbortSignal },
): Promise<T> {
  for (let number = 1; ; number += 1) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(number);
    } catch (error) {
      if (!options.retryable(error)) throw error;
      if (number >= options.backoff.attempts) throw retriesExhausted(number, error);
      await delay(backoffDelay(options.backoff, number), options.signal);
    }
  }
}
