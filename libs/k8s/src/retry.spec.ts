import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { backoffDelay, withRetry } from './retry.ts';

const fast = { initialMs: 1, maxMs: 4, factor: 2, jitter: 0.5, attempts: 4 };

describe('withRetry', () => {
  it('grows delays exponentially with jitter, capped', () => {
    expect([1, 2, 3, 4].map((retry) => backoffDelay(fast, retry, () => 0))).toEqual([1, 2, 4, 4]);
    expect(backoffDelay(fast, 1, () => 1)).toBe(1.5);
  });

  it('retries retryable failures until success', async () => {
    let calls = 0;
    const value = await withRetry(
      () => {
        calls += 1;
        return calls < 3 ? Promise.reject(new Error('transient')) : Promise.resolve('done');
      },
      { backoff: fast, retryable: () => true },
    );
    expect([value, calls]).toEqual(['done', 3]);
  });

  it('stops at the attempt bound with the last error, and at once on a final error', async () => {
    let calls = 0;
    const exhausted = withRetry(
      () => {
        calls += 1;
        return Promise.reject(new Error(`failure ${calls}`));
      },
      { backoff: fast, retryable: () => true },
    );
    const error = await exhausted.catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'RetriesExhausted')).toBe(true);
    expect((error as Error).cause).toMatchObject({ message: 'failure 4' });
    expect(calls).toBe(4);
    const final = withRetry(() => Promise.reject(new Error('final')), { backoff: fast, retryable: () => false });
    await expect(final).rejects.toThrow('final');
  });

  it('honours an AbortSignal deadline', async () => {
    const slow = { ...fast, initialMs: 10_000, maxMs: 10_000 };
    const outcome = withRetry(() => Promise.reject(new Error('transient')), { backoff: slow, retryable: () => true, signal: AbortSignal.timeout(50) });
    await expect(outcome).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
