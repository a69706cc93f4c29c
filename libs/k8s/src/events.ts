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
  /** Minimum interval between series updates of one Event. */
  readonly seriesUpdateIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
}

interface Series {
  readonly name: string;
  readonly namespace: string;
  readonly firstAt: number;
  count: number;
  sentAt: number;
}

/** Bounded memory for deduplication: the oldest series are forgotten first. */
const MAX_SERIES = 4_096;

function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * events.k8s.io/v1 recorder. A repeated event (same object, type, reason and note) within the window is
 * folded into the first Event's `series`, updated at most once per interval, so a retry loop reports a
 * count instead of flooding the API with copies (§18.2). Recording is best effort: failures go to
 * `onError`, never to the caller.
 */
export class EventRecorder {
  private readonly client: KubeClient;
  private readonly options: EventRecorderOptions;
  private readonly series = new Map<string, Series>();
  private readonly now: () => number;

  constructor(client: KubeClient, options: EventRecorderOptions) {
    this.client = client;
    this.options = options;
    this.now = options.now ?? (() => Date.now());
  }

  /** Records the event; resolves when the API write (if any) finished. */
  async record(regarding: ObjectReference, event: EventRecord): Promise<void> {
    const namespace = regarding.namespace ?? 'default';
    const key = JSON.stringify([regarding.uid, event.type, event.reason, event.note]);
    const now = this.now();
    const existing = this.series.get(key);
    try {
      if (existing !== undefined && now - existing.firstAt < (this.options.seriesWindowMs ?? 600_000)) {
        existing.count += 1;
        if (now - existing.sentAt < (this.options.seriesUpdateIntervalMs ?? 30_000)) return;
        existing.sentAt = now;
        await this.client.patch(
          resourceTypes.event,
          { namespace: existing.namespace, name: existing.name },
          { series: { count: existing.count, lastObservedTime: microTime(new Date(now)) } },
          contentTypes.mergePatch,
        );
        return;
      }
      const name = `${regarding.name}.${randomBytes(8).toString('hex')}`;
      this.remember(key, { name, namespace, firstAt: now, count: 1, sentAt: now });
      await this.client.create(
        resourceTypes.event,
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name, namespace },
          eventTime: microTime(new Date(now)),
          reportingController: this.options.reportingController,
          reportingInstance: this.options.reportingInstance,
          action: event.action,
          reason: event.reason,
          type: event.type,
          note: event.note.slice(0, 1024),
          regarding,
        },
        { namespace },
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
