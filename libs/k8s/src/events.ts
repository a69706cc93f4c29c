import { randomBytes } from 'node:crypto';
import { type KubeClient, contentTypes } from './client.ts';
import { resourceTypes } from './resources.ts';

export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
}

export interface EventRecord {
  readonly type: 'Normal' | 'Warning';
  /** Short CamelCase reason; for rejections, the stable error code. */
  readonly reason: string;
  /** What the component was doing, e.g. "Prepare". */
  readonly action: string;
  readonly note: string;
}

export interface EventRecorderOptions {
  readonly reportingController: string;
  readonly reportingInstance: string;
  /** Identical events within this window update one Event's series instead of creating new ones. */
  readonly seriesWindowMs?: number;
  /** Repeats are counted in memory and written to the Event's series at most once per interval. */
  readonly seriesUpdateIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

interface Series {
  readonly name: string;
  readonly namespace: string;
  readonly firstAt: number;
  /** Settles when the Event exists (or its creation failed): a series update must not overtake it. */
  created: Promise<void>;
  count: number;
  /** Wall-clock time of the latest occurrence, for series.lastObservedTime. */
  lastAt: Date;
  /** The count the API has, and when it was written. */
  sentCount: number;
  sentAt: number;
  flush: ReturnType<typeof setTimeout> | undefined;
}

/** Bounded memory for deduplication: the oldest series are forgotten first. */
const MAX_SERIES = 4_096;

function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * events.k8s.io/v1 recorder. A repeated event (same object, type, reason and note) within the window is
 * folded into the first Event's `series`, so a retry loop reports a count instead of flooding the API
 * with copies (§18.2). Repeats are written by a timer at most once per interval after the previous
 * write, so the last count of a burst reaches the API even when no further repeat follows; close()
 * writes what is still pending. Recording is best effort: failures go to `onError`, never to the caller.
 */
export class EventRecorder {
  private readonly client: KubeClient;
  private readonly options: EventRecorderOptions;
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Series>();
  private readonly intervalMs: number;

  constructor(client: KubeClient, options: EventRecorderOptions) {
    this.client = client;
    this.options = options;
    this.intervalMs = options.seriesUpdateIntervalMs ?? 30_000;
  }

  /** Records the event; a new Event is created before this resolves, a repeat is written later. */
  async record(regarding: ObjectReference, event: EventRecord): Promise<void> {
    const namespace = regarding.namespace ?? 'default';
    const key = JSON.stringify([regarding.uid, event.type, event.reason, event.note]);
    // Monotonic for the window and interval; wall clock only for the timestamps written.
    const now = performance.now();
    const existing = this.series.get(key);
    if (existing !== undefined && now - existing.firstAt < (this.options.seriesWindowMs ?? 600_000)) {
      existing.count += 1;
      existing.lastAt = new Date();
      this.schedule(existing);
      return;
    }
    const name = `${regarding.name}.${randomBytes(8).toString('hex')}`;
    const series: Series = {
      name,
      namespace,
      firstAt: now,
      created: Promise.resolve(),
      count: 1,
      lastAt: new Date(),
      sentCount: 1,
      sentAt: now,
      flush: undefined,
    };
    this.remember(key, series);
    series.created = this.client
      .create(
        resourceTypes.event,
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name, namespace },
          eventTime: microTime(series.lastAt),
          reportingController: this.options.reportingController,
          reportingInstance: this.options.reportingInstance,
          action: event.action,
          reason: event.reason,
          type: event.type,
          note: event.note.slice(0, 1024),
          regarding,
        },
        { namespace },
      )
      .then(
        () => undefined,
        (error: unknown) => {
          // Without its Event the series has nothing to update: the next occurrence creates one.
          if (this.series.get(key) === series) this.series.delete(key);
          this.options.onError?.(error);
        },
      );
    await series.created;
  }

  /** Writes every pending series count and stops the timers; the recorder stays usable. */
  async close(): Promise<void> {
    const pending = [...this.pending];
    for (const series of pending) clearTimeout(series.flush);
    await Promise.all(pending.map((series) => this.write(series)));
  }

  private schedule(series: Series): void {
    if (series.flush !== undefined) return;
    this.pending.add(series);
    series.flush = setTimeout(
      () => {
        void this.write(series);
      },
      Math.max(0, series.sentAt + this.intervalMs - performance.now()),
    );
    // Pending counts must not keep a finished process alive; close() writes them on shutdown.
    series.flush.unref();
  }

  private async write(series: Series): Promise<void> {
    series.flush = undefined;
    this.pending.delete(series);
    await series.created;
    if (series.count === series.sentCount) return;
    const count = series.count;
    series.sentCount = count;
    series.sentAt = performance.now();
    try {
      await this.client.patch(
        resourceTypes.event,
        { namespace: series.namespace, name: series.name },
        { series: { count, lastObservedTime: microTime(series.lastAt) } },
        contentTypes.mergePatch,
      );
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private remember(key: string, series: Series): void {
    this.series.delete(key);
    this.series.set(key, series);
    if (this.series.size > MAX_SERIES) {
      const oldest = this.series.keys().next().value;
      if (oldest !== undefined) this.series.delete(oldest);
    }
  }
}
