/**
 * When the daemon tries a pending teardown again: the first retry `initialMs` after the first failure,
 * each later one twice as long after the previous, never longer than `maxMs`. No attempt limit: a
 * delegate that cannot be deleted keeps its IPAM allocation, so the daemon keeps trying at the cap
 * (a few minutes, one plugin run per container) rather than give the allocation up.
 */
export interface RetrySchedule {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** 1 s doubling to 5 min: a transient failure (a busy IPAM store) is retried quickly, a lasting one cheaply. */
export const TEARDOWN_RETRY: RetrySchedule = { initialMs: 1_000, maxMs: 300_000 };

/** The delay before the next attempt after `failedAttempts` (≥ 1) failed ones. */
export function retryDelayMs(schedule: RetrySchedule, failedAttempts: number): number {
  if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 1) throw new RangeError(`failed attempts must be a whole number ≥ 1, got ${failedAttempts}`);
  // 2 ** 1023 is still finite; past that the cap has long been reached.
  const doubling = 2 ** Math.min(failedAttempts - 1, 1023);
  return Math.min(schedule.maxMs, schedule.initialMs * doubling);
}
