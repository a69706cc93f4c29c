import { TokenBucket } from './rate-limiter.ts';

export interface WorkQueueOptions {
  /** Per-key exponential backoff on failures (client-go: 5 ms … 1000 s). */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Overall retry rate limit (client-go: 10 qps, burst 100). */
  readonly qps?: number;
  readonly burst?: number;
}

/**
 * A client-go style work queue of keys. A key is held at most once while waiting (dedupe) and is never
 * handed to two workers at once: adding a key that is being processed marks it dirty, and it returns to
 * the queue when that worker calls done(). Failures are retried through addRateLimited with per-key
 * exponential backoff, reset by forget() after a success.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly bucket: TokenBucket;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
    this.bucket = new TokenBucket(options.qps ?? 10, options.burst ?? 100);
  }

  get length(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Adds the key after `ms`; while a key already waits on a timer, later calls for it are ignored. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    if (this.delayed.has(key)) return;
    this.delayed.set(
      key,
      setTimeout(() => {
        this.delayed.delete(key);
        this.add(key);
      }, ms),
    );
  }

  /** Re-adds a key that failed, after the larger of its own backoff and the overall rate limit. */
  addRateLimited(key: string): void {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const perKey = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
    this.addAfter(key, Math.max(perKey, this.bucket.reserve()));
  }

  /** Clears a key's failure history after it was processed successfully. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, waiting if none is ready; undefined once shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key handed out by get() as finished; re-queues it if it was added meanwhile. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
