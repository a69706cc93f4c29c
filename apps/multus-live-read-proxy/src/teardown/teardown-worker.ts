import type { Logger } from 'pino';
import { loadDelegates, removeDelegates } from '../cache/delegate-cache.ts';
import type { InvokeOptions } from '../cni/invoke.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { DaemonMetrics } from '../metrics.ts';
import { type DelSettings, type DelegateDeleteEffects, type DelegateFailure, deleteDelegates, describeFailures } from '../pipeline/del.ts';
import { k8sArgsOf } from '../pipeline/k8s-args.ts';
import type { CniRequest } from '../server/cni-request.ts';
import type { AttachmentRecord } from './attachment-record.ts';
import { type DelInputs, delInputsOf, delRequestOf } from './del-inputs.ts';
import { KeyedLock } from './keyed-lock.ts';
import { type PodIdentity, describePod } from './pod-identity.ts';
import { type RetrySchedule, retryDelayMs } from './retry-schedule.ts';
import type { TeardownReason, TeardownRecord } from './teardown-record.ts';
import { TeardownStateError } from './teardown-state-error.ts';
import {
  listAttachmentRecords,
  listTeardownRecords,
  loadAttachmentRecord,
  loadTeardownRecord,
  removeAttachmentRecord,
  removeTeardownRecord,
  saveAttachmentRecord,
  saveTeardownRecord,
  teardownRecordPath,
} from './teardown-store.ts';
import { attachmentKey } from './valid-attachments.ts';

/** What asked for a teardown attempt (a metric label). */
export type TeardownTrigger = 'runtime-del' | 'add-rollback' | 'retry' | 'start' | 'pod-gone' | 'gc';

export type TeardownOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'nothing-cached' }
  | {
      readonly kind: 'pending';
      readonly failures: readonly DelegateFailure[];
      readonly attempts: number;
      readonly nextAttemptMs: number;
      /** The pending teardown record's path. */
      readonly record: string;
    };

/** The attachment a teardown is about: its container, the inputs its DEL runs with, and its Pod. */
export interface TeardownSubject {
  readonly containerID: string;
  readonly del: DelInputs;
  readonly pod: PodIdentity;
}

export interface TeardownWorkerOptions {
  /** The settings a request runs with: the daemon's overlay of the request's shim configuration. */
  settingsFor(request: CniRequest): DelSettings;
  delNetwork(bytes: Uint8Array, rt: RuntimeConf, options: Required<InvokeOptions>): Promise<void>;
  readonly schedule: RetrySchedule;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly now?: () => Date;
}

interface Pending {
  readonly cniDir: string;
  readonly containerID: string;
  timer?: NodeJS.Timeout;
}

/** The Pod a request names in CNI_ARGS, for a teardown without an attachment record. */
function podOfArgs(request: CniRequest): PodIdentity {
  const k8s = k8sArgsOf(request.args);
  return { namespace: k8s.podNamespace, name: k8s.podName, uid: k8s.podUID };
}

/**
 * Deletes cached attachments so that none leaks: the runtime's DEL, and every DEL that failed or never
 * reached the daemon, retried by the daemon itself with backoff (the upstream shim reports success on a
 * failed DEL and when the daemon is down, so the runtime never retries). A teardown that did not finish
 * is a record beside the delegate cache; both go only once every delegate's DEL succeeded. One operation
 * per container at a time.
 */
export class TeardownWorker {
  private readonly lock = new KeyedLock();
  /** By teardown record path: every pending teardown this process knows, scheduled or not (corrupt). */
  private readonly pending = new Map<string, Pending>();
  /** Containers whose ADD runs now (by record path): GC must not take them for stale. */
  private readonly addsInFlight = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly stopping = new AbortController();

  private readonly options: TeardownWorkerOptions;

  constructor(options: TeardownWorkerOptions) {
    this.options = options;
  }

  /** The runtime's DEL: a pending teardown of the container is replayed now; else its cache is replayed with the request's inputs. */
  runtimeDel(request: CniRequest, settings: DelSettings, signal: AbortSignal): Promise<TeardownOutcome> {
    const { cniDir } = settings;
    return this.exclusive(cniDir, request.containerID, async () => {
      const pending = await this.loadPending(cniDir, request.containerID);
      if (pending !== undefined) return this.replay(cniDir, pending, 'runtime-del', signal);
      const delegates = await loadDelegates(cniDir, request.containerID);
      const attachment = await loadAttachmentRecord(cniDir, request.containerID).catch(() => undefined);
      if (delegates === undefined) {
        this.options.logger.info({ containerID: request.containerID }, 'DEL: no delegate cache for this container; nothing was added through this daemon');
        if (attachment !== undefined) await removeAttachmentRecord(cniDir, request.containerID);
        return { kind: 'nothing-cached' };
      }
      const failures = await deleteDelegates(request, delegates, settings, this.delegateEffects(), signal);
      if (failures.length === 0) return this.complete(cniDir, request.containerID);
      const subject = { containerID: request.containerID, del: delInputsOf(request), pod: attachment?.pod ?? podOfArgs(request) };
      return this.failed(cniDir, this.newRecord(subject, 'DelFailed'), failures, 'runtime-del');
    });
  }

  /**
   * ADD's record of an attachment, written before its first delegate runs. A teardown still pending for
   * the same container (an earlier ADD's undo that failed) is finished first: it would delete the new one.
   */
  recordAttachment(cniDir: string, record: AttachmentRecord, signal: AbortSignal): Promise<void> {
    return this.exclusive(cniDir, record.containerID, async () => {
      const pending = await this.loadPending(cniDir, record.containerID);
      if (pending !== undefined) {
        const outcome = await this.replay(cniDir, pending, 'runtime-del', signal);
        if (outcome.kind === 'pending') {
          throw new TeardownStateError(
            'TeardownPending',
            outcome.record,
            `container ${record.containerID} is being added again while its earlier attachment is still being torn down (${describeFailures(outcome.failures)})`,
          );
        }
      }
      await saveAttachmentRecord(cniDir, record);
    });
  }

  /** Marks a container as being added until the returned function is called, so that GC leaves its attachment alone. */
  beginAdd(cniDir: string, containerID: string): () => void {
    const key = teardownRecordPath(cniDir, containerID);
    this.addsInFlight.add(key);
    return () => {
      this.addsInFlight.delete(key);
    };
  }

  /**
   * Makes an attachment's teardown pending. With `failures` (the undo of a failed ADD that did not
   * finish) its first retry is scheduled; without, it is attempted now. A teardown already pending is
   * attempted now instead; an attachment whose delegate cache is gone has nothing left to delete.
   */
  pend(
    cniDir: string,
    subject: TeardownSubject,
    reason: TeardownReason,
    trigger: TeardownTrigger,
    failures: readonly DelegateFailure[] = [],
  ): Promise<TeardownOutcome> {
    return this.exclusive(cniDir, subject.containerID, async () => {
      const pending = await this.loadPending(cniDir, subject.containerID);
      if (pending !== undefined)
        return failures.length > 0 ? this.outcomeOf(cniDir, pending, failures) : this.replay(cniDir, pending, trigger, this.stopping.signal);
      if ((await loadDelegates(cniDir, subject.containerID).catch(() => [])) === undefined) {
        await removeAttachmentRecord(cniDir, subject.containerID);
        return { kind: 'nothing-cached' };
      }
      const record = this.newRecord(subject, reason);
      if (failures.length > 0) return this.failed(cniDir, record, failures, trigger);
      await saveTeardownRecord(cniDir, record);
      this.options.metrics.teardownsPended.inc({ reason });
      this.track(cniDir, subject.containerID);
      return this.replay(cniDir, record, trigger, this.stopping.signal);
    });
  }

  /**
   * At start, before the daemon serves: attachment records whose delegate cache is gone (upstream Multus
   * deleted it, or a crash between the two writes of an ADD) are removed, and every pending teardown in
   * cniDir is attempted now (in the background, one at a time per container). A record that does not
   * decode is logged and counted, and stays as it is with its cache.
   */
  async resume(cniDir: string): Promise<void> {
    const pending = await listTeardownRecords(cniDir);
    for (const containerID of await listAttachmentRecords(cniDir)) {
      if (pending.includes(containerID) || (await loadDelegates(cniDir, containerID).catch(() => [])) !== undefined) continue;
      await removeAttachmentRecord(cniDir, containerID);
      this.options.logger.info({ containerID }, 'attachment record without a delegate cache removed: nothing is left to delete');
    }
    for (const containerID of pending) {
      this.track(cniDir, containerID);
      this.schedule(cniDir, containerID, 0, 'start');
    }
  }

  /**
   * CNI GC: the attachments the runtime no longer has (not among its valid attachments) are torn down now,
   * pending teardowns and attachments ADD recorded alike. Those being added right now are left alone.
   */
  async replayStale(cniDir: string, valid: ReadonlySet<string>): Promise<number> {
    const containerIDs = new Set([...(await listTeardownRecords(cniDir)), ...(await listAttachmentRecords(cniDir))]);
    let replayed = 0;
    for (const containerID of [...containerIDs].sort()) {
      if (this.addsInFlight.has(teardownRecordPath(cniDir, containerID))) continue;
      try {
        const subject = (await loadTeardownRecord(cniDir, containerID)) ?? (await loadAttachmentRecord(cniDir, containerID));
        if (subject === undefined || valid.has(attachmentKey(containerID, subject.del.ifName))) continue;
        this.options.logger.info(
          { containerID, pod: describePod(subject.pod) },
          'GC: attachment is not among the runtime’s valid attachments; tearing it down',
        );
        replayed += 1;
        await this.pend(cniDir, subject, 'NotInValidAttachments', 'gc');
      } catch (error) {
        this.options.logger.error({ err: error, containerID }, 'GC: could not tear a stale attachment down; left as it is');
      }
    }
    return replayed;
  }

  /** Pending teardowns this process knows (scheduled, or blocked by a corrupt record). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Cancels scheduled retries and what runs now (a killed DEL counts as a failed attempt), then waits. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private exclusive<T>(cniDir: string, containerID: string, operation: () => Promise<T>): Promise<T> {
    return this.lock.run(teardownRecordPath(cniDir, containerID), operation);
  }

  private delegateEffects(): DelegateDeleteEffects {
    const { options } = this;
    return { delNetwork: (bytes, rt, invokeOptions) => options.delNetwork(bytes, rt, invokeOptions), logger: options.logger };
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private newRecord(subject: TeardownSubject, reason: TeardownReason): TeardownRecord {
    const now = this.now();
    return {
      version: 1,
      containerID: subject.containerID,
      del: subject.del,
      pod: subject.pod,
      reason,
      attempts: 0,
      lastError: '',
      pendingSince: now,
      lastAttemptAt: now,
    };
  }

  /** The pending record, or undefined; a corrupt one is tracked (counted), logged, and stops the caller. */
  private async loadPending(cniDir: string, containerID: string): Promise<TeardownRecord | undefined> {
    try {
      return await loadTeardownRecord(cniDir, containerID);
    } catch (error) {
      this.track(cniDir, containerID);
      this.options.logger.error({ err: error, containerID }, 'pending teardown record unusable; it and the delegate cache are left as they are');
      throw error;
    }
  }

  /** One attempt of a pending teardown with the inputs it recorded. */
  private async replay(cniDir: string, record: TeardownRecord, trigger: TeardownTrigger, signal: AbortSignal): Promise<TeardownOutcome> {
    const { logger, metrics } = this.options;
    const request = delRequestOf(record.containerID, record.del);
    const context = { containerID: record.containerID, pod: describePod(record.pod), reason: record.reason, attempt: record.attempts + 1, trigger };
    logger.info(context, 'replaying a pending teardown');
    let failures: DelegateFailure[];
    try {
      const settings = { ...this.options.settingsFor(request), cniDir };
      const delegates = await loadDelegates(cniDir, record.containerID);
      failures = delegates === undefined ? [] : await deleteDelegates(request, delegates, settings, this.delegateEffects(), signal);
    } catch (error) {
      failures = [{ network: '<delegate cache>', error }];
    }
    metrics.teardownReplays.inc({ trigger, result: failures.length === 0 ? 'success' : 'failure' });
    if (failures.length > 0) return this.failed(cniDir, record, failures, trigger);
    const outcome = await this.complete(cniDir, record.containerID);
    logger.info({ ...context, failedAttempts: record.attempts, pendingSince: record.pendingSince }, 'pending teardown finished: every delegate deleted');
    return outcome;
  }

  /** Every delegate deleted: the cache (which upstream reads) first, the records last, so a crash in between only repeats DEL. */
  private async complete(cniDir: string, containerID: string): Promise<TeardownOutcome> {
    await removeDelegates(cniDir, containerID);
    await removeAttachmentRecord(cniDir, containerID);
    await removeTeardownRecord(cniDir, containerID);
    const key = teardownRecordPath(cniDir, containerID);
    clearTimeout(this.pending.get(key)?.timer);
    this.pending.delete(key);
    this.options.metrics.pendingTeardowns.set(this.pending.size);
    return { kind: 'done' };
  }

  /** Records a failed attempt durably and schedules the next. */
  private async failed(cniDir: string, record: TeardownRecord, failures: readonly DelegateFailure[], trigger: TeardownTrigger): Promise<TeardownOutcome> {
    const updated: TeardownRecord = { ...record, attempts: record.attempts + 1, lastError: describeFailures(failures), lastAttemptAt: this.now() };
    const created = !this.pending.has(teardownRecordPath(cniDir, record.containerID));
    await saveTeardownRecord(cniDir, updated);
    // A teardown whose first DEL failed becomes pending here; one pended before its first attempt is counted already.
    if (created) this.options.metrics.teardownsPended.inc({ reason: record.reason });
    this.track(cniDir, record.containerID);
    const outcome = this.outcomeOf(cniDir, updated, failures);
    this.schedule(cniDir, record.containerID, outcome.nextAttemptMs, 'retry');
    this.options.logger.warn(
      {
        containerID: record.containerID,
        pod: describePod(record.pod),
        networks: failures.map(({ network }) => network),
        reason: record.reason,
        attempt: updated.attempts,
        trigger,
        lastError: updated.lastError,
        nextRetryAt: new Date(Date.now() + outcome.nextAttemptMs).toISOString(),
      },
      'teardown incomplete: the delegate cache is kept and the DEL retried',
    );
    return outcome;
  }

  private outcomeOf(cniDir: string, record: TeardownRecord, failures: readonly DelegateFailure[]): TeardownOutcome & { kind: 'pending' } {
    const nextAttemptMs = retryDelayMs(this.options.schedule, Math.max(1, record.attempts));
    return { kind: 'pending', failures, attempts: record.attempts, nextAttemptMs, record: teardownRecordPath(cniDir, record.containerID) };
  }

  private track(cniDir: string, containerID: string): void {
    const key = teardownRecordPath(cniDir, containerID);
    if (!this.pending.has(key)) this.pending.set(key, { cniDir, containerID });
    this.options.metrics.pendingTeardowns.set(this.pending.size);
  }

  private schedule(cniDir: string, containerID: string, delayMs: number, trigger: TeardownTrigger): void {
    const entry = this.pending.get(teardownRecordPath(cniDir, containerID));
    if (entry === undefined || this.stopping.signal.aborted) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.background(
        this.exclusive(cniDir, containerID, async () => {
          const record = await this.loadPending(cniDir, containerID);
          // Finished meanwhile (the runtime's DEL, GC), or a record that was removed by hand.
          if (record === undefined) {
            this.pending.delete(teardownRecordPath(cniDir, containerID));
            this.options.metrics.pendingTeardowns.set(this.pending.size);
            return;
          }
          await this.replay(cniDir, record, trigger, this.stopping.signal);
        }),
        { containerID },
      );
    }, delayMs);
    entry.timer.unref();
  }

  private background(work: Promise<unknown>, context: Record<string, unknown>): void {
    const tracked = work
      .catch((error: unknown) => {
        this.options.logger.error({ ...context, err: error }, 'teardown attempt failed before any DEL ran; retried at the next start or DEL');
      })
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}
