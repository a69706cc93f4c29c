import { describe, expect, it } from '@jest/globals';
import { TEARDOWN_RETRY, retryDelayMs } from '../../src/teardown/retry-schedule.ts';

describe('retryDelayMs', () => {
  it('waits 1 s after the first failure and doubles to a cap of 5 min, where it stays', () => {
    expect([1, 2, 3, 4, 8, 9, 10, 11, 100, 5000].map((failed) => retryDelayMs(TEARDOWN_RETRY, failed))).toEqual([
      1_000, 2_000, 4_000, 8_000, 128_000, 256_000, 300_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('follows an injected schedule', () => {
    expect([1, 2, 3, 4].map((failed) => retryDelayMs({ initialMs: 50, maxMs: 150 }, failed))).toEqual([50, 100, 150, 150]);
  });

  it('refuses a count of failed attempts that is not a whole number ≥ 1', () => {
    for (const failed of [0, -1, 1.5, Number.NaN]) {
      expect(() => retryDelayMs(TEARDOWN_RETRY, failed)).toThrow(new RangeError(`failed attempts must be a whole number ≥ 1, got ${String(failed)}`));
    }
  });
});
