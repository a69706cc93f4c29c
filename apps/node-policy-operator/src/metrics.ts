import { Counter, Gauge, Registry } from 'prom-client';
import { isSriovDraError } from '@sriov-dra/contract';

/** How one reconciliation ended: as controller-runtime counts them. */
export type ReconcileResult = 'success' | 'requeue' | 'error';

/** What a work queue shows of itself: the keys waiting (not those being handled). */
export interface QueueDepthSource {
  readonly length: number;
}

/** The code a failed reconciliation is counted under: its stable code, else Unclassified. */
export function reconcileErrorCode(error: unknown): string {
  return isSriovDraError(error) ? error.code : 'Unclassified';
}

/**
 * The operator's Prometheus metrics, in a registry of its own so two operators in one process (a leader
 * and a standby in a test) never collide. Controllers are named as their logs name them
 * (SriovNetwork, node-policy).
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller' | 'code'>;
  readonly leader: Gauge;
  readonly draSchemaMissing: Gauge;
  readonly #queues = new Map<string, QueueDepthSource>();

  constructor() {
    const registers = [this.registry];
    const queues = this.#queues;
    this.reconciles = new Counter({
      name: 'sriov_dra_operator_reconciles_total',
      help: 'Reconciliations handled, by controller and result (success, requeue: asked to run again with backoff, error: failed and retried with backoff).',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'sriov_dra_operator_reconcile_errors_total',
      help: 'Failed reconciliations, by controller and stable error code (Unclassified when the failure carries none).',
      labelNames: ['controller', 'code'],
      registers,
    });
    new Gauge({
      name: 'sriov_dra_operator_work_queue_depth',
      help: 'Keys waiting in a controller’s work queue (0 once the controller stopped with its leadership).',
      labelNames: ['controller'],
      registers,
      collect() {
        for (const [controller, queue] of queues) this.set({ controller }, queue.length);
      },
    });
    this.leader = new Gauge({
      name: 'sriov_dra_operator_leader',
      help: '1 while this replica holds the Lease and runs the controllers (paused while sriov_dra_operator_dra_schema_missing is 1), else 0.',
      registers,
    });
    this.leader.set(0);
    this.draSchemaMissing = new Gauge({
      name: 'sriov_dra_operator_dra_schema_missing',
      help: '1 while the SriovNetworkNodePolicy CRD declares no spec.dra and the leader’s controllers are paused (run node-policy-operator crds apply), else 0.',
      registers,
    });
    this.draSchemaMissing.set(0);
  }

  /** Reports `queue` as the controller's work queue until the returned function is called. */
  watchQueue(controller: string, queue: QueueDepthSource): () => void {
    this.#queues.set(controller, queue);
    return () => {
      if (this.#queues.get(controller) === queue) this.#queues.set(controller, { length: 0 });
    };
  }

  reconciled(controller: string, result: ReconcileResult, error?: unknown): void {
    this.reconciles.inc({ controller, result });
    if (result === 'error') this.reconcileErrors.inc({ controller, code: reconcileErrorCode(error) });
  }
}
