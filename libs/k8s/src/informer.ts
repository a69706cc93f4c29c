import { SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { isApiError } from './api-errors.ts';
import type { KubeClient, KubeObject, WatchEvent } from './client.ts';
import { delay } from './rate-limiter.ts';
import { type Backoff, backoffDelay } from './retry.ts';
import type { ResourceType } from './resources.ts';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(object: T): void;
  /** Also called with old === new on every periodic resync, so level-triggered consumers re-check. */
  onUpdate?(previous: T, current: T): void;
  onDelete?(object: T): void;
}

export interface InformerOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  /**
   * Server-side field selector for both list and watch, e.g. `spec.nodeName=<node>` so that a node's
   * daemon caches only its own Pods.
   */
  readonly fieldSelector?: string;
  /** Period of the full-store resync; 0 disables it. */
  readonly resyncMs?: number;
  /** A watch with neither events nor bookmarks for this long is presumed dead and reopened. */
  readonly watchIdleMs?: number;
  /** Server-side watch timeout; the server closes the stream and the informer reopens it. */
  readonly watchTimeoutSeconds?: number;
  readonly pageSize?: number;
  readonly backoff?: Backoff;
  /** Observes restarts and failures (logging, metrics); never required for correctness. */
  readonly onError?: (error: unknown, phase: 'list' | 'watch') => void;
  /** Observes each completed full list and why it was needed (logging, metrics). */
  readonly onList?: (cause: ListCause) => void;
}

/** Why the informer listed: its first sync, or its watch position expired (410 Gone). */
export type ListCause = 'start' | 'expired';

const defaultBackoff: Backoff = { initialMs: 200, maxMs: 30_000, factor: 2, jitter: 0.3, attempts: Number.POSITIVE_INFINITY };

export function objectKey(object: KubeObject): string {
  return object.metadata.namespace === undefined ? object.metadata.name : `${object.metadata.namespace}/${object.metadata.name}`;
}

/**
 * List+watch cache of one resource type. It restarts itself on any failure with backoff, relists on
 * 410 Gone (and whenever the watch cannot resume), and replaces its store by diffing the fresh list so
 * handlers see each change once: nothing lost across restarts, nothing repeated. A watchdog reopens a
 * watch that went silent (half-open connections), and a periodic resync replays the store.
 *
 * The cache is for triggering work. Correctness-critical reads use live GETs (§3.1).
 */
export class Informer<T extends KubeObject> {
  private readonly store = new Map<string, T>();
  private synced = false;
  private resourceVersion = '';
  private readonly syncWaiters: (() => void)[] = [];
  private readonly client: KubeClient;
  private readonly type: ResourceType;
  private readonly handlers: InformerHandlers<T>;
  private readonly options: InformerOptions;

  constructor(client: KubeClient, type: ResourceType, handlers: InformerHandlers<T>, options: InformerOptions = {}) {
    this.client = client;
    this.type = type;
    this.handlers = handlers;
    this.options = options;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  /** Runs until the signal aborts; never rejects for API failures (they are retried). */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = this.options.backoff ?? defaultBackoff;
    const resync = this.options.resyncMs ?? 0;
    const timer =
      resync > 0
        ? setInterval(() => {
            this.resync();
          }, resync)
        : undefined;
    // Read through a call: the signal flips asynchronously, which flow analysis cannot see.
    const stopped = (): boolean => signal.aborted;
    let failures = 0;
    let needList: ListCause | undefined = 'start';
    try {
      while (!stopped()) {
        try {
          if (needList !== undefined) {
            await this.relist(signal);
            this.options.onList?.(needList);
            needList = undefined;
          }
          await this.watch(signal);
          failures = 0;
        } catch (error) {
          if (stopped()) break;
          const phase = needList === undefined ? 'watch' : 'list';
          this.options.onError?.(error, phase);
          if (isApiError(error, 'Gone')) {
            // The resourceVersion left the server's window: only a fresh list can resynchronize.
            needList = 'expired';
            continue;
          }
          if (isSriovDraError(error, 'WatchStalled')) continue;
          failures += 1;
          await delay(backoffDelay(backoff, failures), signal).catch(() => undefined);
        }
      }
    } finally {
      if (timer !== undefined) clearInterval(timer);
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const fresh = new Map<string, T>();
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.client.list<T>(this.type, {
        namespace: this.options.namespace,
        ...this.selectors(),
        limit: this.options.pageSize ?? 500,
        continue: token,
        signal,
      });
      for (const item of page.items) fresh.set(objectKey(item), item);
      token = page.metadata.continue === '' ? undefined : page.metadata.continue;
      resourceVersion = page.metadata.resourceVersion;
    } while (token !== undefined);
    for (const [key, previous] of this.store) {
      if (!fresh.has(key)) {
        this.store.delete(key);
        this.handlers.onDelete?.(previous);
      }
    }
    for (const [key, current] of fresh) {
      const previous = this.store.get(key);
      this.store.set(key, current);
      if (previous === undefined) this.handlers.onAdd?.(current);
      else if (previous.metadata.resourceVersion !== current.metadata.resourceVersion) this.handlers.onUpdate?.(previous, current);
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter();
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const idleMs = this.options.watchIdleMs ?? 90_000;
    const controller = new AbortController();
    const stop = (): void => {
      controller.abort();
    };
    signal.addEventListener('abort', stop, { once: true });
    // Set by the watchdog timer, asynchronously.
    let idle = false as boolean;
    let watchdog = setTimeout(() => {
      idle = true;
      controller.abort();
    }, idleMs);
    try {
      const events = this.client.watch(this.type, {
        namespace: this.options.namespace,
        ...this.selectors(),
        resourceVersion: this.resourceVersion,
        timeoutSeconds: this.options.watchTimeoutSeconds ?? 300,
        signal: controller.signal,
      });
      for await (const event of events) {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          idle = true;
          controller.abort();
        }, idleMs);
        this.apply(event as WatchEvent & { object: T });
      }
      if (idle) throw new SriovDraError('WatchStalled', `watch of ${this.type.resource} was silent for ${idleMs} ms`);
    } catch (error) {
      // A watch that never got its response headers is as stalled as one that stopped delivering.
      if (idle && !isSriovDraError(error, 'WatchStalled')) {
        throw new SriovDraError('WatchStalled', `watch of ${this.type.resource} got no response for ${idleMs} ms`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * The watch must select exactly what the list selected, or the store would gain objects the list
   * never had. KubeClient.watch passes every option it does not consume on as a query parameter.
   */
  private selectors(): { labelSelector?: string; fieldSelector?: string } {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  private apply(event: WatchEvent & { object: T }): void {
    const object = event.object;
    this.resourceVersion = object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') return;
    const key = objectKey(object);
    const previous = this.store.get(key);
    if (event.type === 'DELETED') {
      this.store.delete(key);
      if (previous !== undefined) this.handlers.onDelete?.(object);
      return;
    }
    // A replayed event for a state already in the store (after a reconnect) is not a change.
    if (previous?.metadata.resourceVersion === object.metadata.resourceVersion) return;
    this.store.set(key, object);
    if (previous === undefined) this.handlers.onAdd?.(object);
    else this.handlers.onUpdate?.(previous, object);
  }

  private resync(): void {
    if (!this.synced) return;
    for (const object of this.store.values()) this.handlers.onUpdate?.(object, object);
  }
}
