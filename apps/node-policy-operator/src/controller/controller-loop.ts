import type { Logger } from 'pino';
import type { KubeObject, WorkQueue } from '@sriov-dra/k8s';
import type { OperatorMetrics } from '../metrics.ts';
import type { SharedInformer } from './shared-informers.ts';

export interface ControllerLoop {
  /** Resolves once every informer has listed, so the first reconciliations see the whole cluster. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}

export interface ControllerLoopOptions {
  readonly name: string;
  /** What the controller reads; they run elsewhere (shared), the loop only waits for their first lists. */
  readonly informers: readonly SharedInformer<KubeObject>[];
  readonly queue: WorkQueue;
  readonly logger: Logger;
  /** Counts each reconciliation's result and reports the queue's depth; absent in tests of the controllers. */
  readonly metrics?: OperatorMetrics;
  /** Before the first key is handled, once every informer has listed. */
  readonly onSynced?: () => void;
  /** Reconciles one key; `retry` re-queues it with backoff, a throw does too and is logged. */
  reconcile(key: string, signal: AbortSignal): Promise<'done' | 'retry'>;
}

/**
 * One controller's machinery: a single worker takes keys from the rate-limited queue once the informers
 * it reads have synced (they only wake the controller by adding keys). A key is never handled twice
 * at once, a key added while it is handled runs again after, and a failure backs off per key.
 */
export function startControllerLoop(options: ControllerLoopOptions): ControllerLoop {
  const { queue, informers, logger, metrics } = options;
  const abort = new AbortController();
  const unwatchQueue = metrics?.watchQueue(options.name, queue);
  const worker = (async () => {
    await Promise.all(informers.map((informer) => informer.waitForSync(abort.signal))).catch(() => undefined);
    options.onSynced?.();
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        if ((await options.reconcile(key, abort.signal)) === 'retry') {
          metrics?.reconciled(options.name, 'requeue');
          queue.addRateLimited(key);
        } else {
          metrics?.reconciled(options.name, 'success');
          queue.forget(key);
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        metrics?.reconciled(options.name, 'error', error);
        logger.warn({ err: error, key, failures: queue.failuresOf(key) + 1 }, `${options.name} reconciliation failed; retrying`);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  })();
  return {
    async waitForSync(signal) {
      await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
    },
    async stop() {
      abort.abort();
      queue.shutDown();
      await worker;
      unwatchQueue?.();
    },
  };
}
