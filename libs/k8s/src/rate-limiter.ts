import { SriovDraError } from '@sriov-dra/contract';

/**
 * Client-side token bucket (client-go's QPS/burst): `burst` requests may go at once, then `qps` per
 * second. Waiting honours an AbortSignal so a cancelled caller never holds a slot.
 */
export class TokenBucket {
  private readonly qps: number;
  private readonly burst: number;
  private readonly now: () => number;
  private tokens: number;
  private last: number;

  constructor(qps: number, burst: number, now: () => number = () => performance.now()) {
    this.qps = qps;
    this.burst = burst;
    this.now = now;
    if (!(qps > 0) || !(burst >= 1)) throw new SriovDraError('InvalidComponentSetting', `client rate limit needs qps > 0 and burst >= 1 (got ${qps}/${burst})`);
    this.tokens = burst;
    this.last = now();
  }

  /** Milliseconds until a token is available, after taking it; 0 when one is available now. */
  reserve(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait === 0) return;
    try {
      await delay(wait, signal);
    } catch (error) {
      this.tokens += 1; // give the reservation back
      throw error;
    }
  }
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
