import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; the kubelet's CNI budget for a sandbox is minutes, a delegate normally milliseconds. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds; one GET against the API server. */
const READ_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

export type RequestResult = 'ok' | 'error';

/**
 * The daemon's Prometheus metrics (a registry of its own, so two daemons in one test process never
 * collide): CNI requests by command and result, the live reads §10.2 adds to ADD, guard rejections by
 * error code, and the time each delegate plugin type takes.
 */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly requestDuration: Histogram<'command' | 'result'>;
  readonly liveReadDuration: Histogram<'object' | 'result'>;
  readonly guardRejections: Counter<'reason'>;
  readonly delegateDuration: Histogram<'plugin_type' | 'command' | 'result'>;
  readonly pendingTeardowns: Gauge;
  readonly teardownsPended: Counter<'reason'>;
  readonly teardownReplays: Counter<'trigger' | 'result'>;

  constructor() {
    const registers = [this.registry];
    this.requestDuration = new Histogram({
      name: 'sriov_dra_multus_cni_request_duration_seconds',
      help: 'Time to answer one CNI request of the shim, by command (ADD, DEL, CHECK, GC, STATUS) and result.',
      labelNames: ['command', 'result'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.liveReadDuration = new Histogram({
      name: 'sriov_dra_multus_live_read_duration_seconds',
      help: 'Live GETs of ADD with liveNetworkConfigOnAdd, by object (pod, network-attachment-definition) and result.',
      labelNames: ['object', 'result'],
      buckets: READ_BUCKETS,
      registers,
    });
    this.guardRejections = new Counter({
      name: 'sriov_dra_multus_guard_rejections_total',
      help: 'ADDs refused before any delegate ran, by error code (managed-shadow guard, interface collisions, namespace isolation …).',
      labelNames: ['reason'],
      registers,
    });
    this.delegateDuration = new Histogram({
      name: 'sriov_dra_multus_delegate_duration_seconds',
      help: 'Time of one delegate network (its whole plugin chain), by the type of its first plugin, command and result.',
      labelNames: ['plugin_type', 'command', 'result'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.pendingTeardowns = new Gauge({
      name: 'sriov_dra_multus_pending_teardowns',
      help: 'Containers whose delegates the daemon still has to DEL itself (a DEL that failed or never reached it); each holds IPAM allocations until it finishes.',
      registers,
    });
    this.teardownsPended = new Counter({
      name: 'sriov_dra_multus_teardowns_pended_total',
      help: 'Teardowns the daemon took over, by reason (DelFailed, AddRollbackFailed, PodGone, NotInValidAttachments).',
      labelNames: ['reason'],
      registers,
    });
    this.teardownReplays = new Counter({
      name: 'sriov_dra_multus_teardown_replays_total',
      help: 'Attempts of a pending teardown (every cached delegate DELed again), by trigger (retry, start, runtime-del, pod-gone, gc) and result (success, failure).',
      labelNames: ['trigger', 'result'],
      registers,
    });
  }

  /** Runs `operation` and observes its duration in `histogram` with `labels` plus its result. */
  async time<T, L extends string>(histogram: Histogram<L | 'result'>, labels: Partial<Record<L, string>>, operation: () => Promise<T>): Promise<T> {
    const stop = histogram.startTimer();
    let result: RequestResult = 'error';
    try {
      const value = await operation();
      result = 'ok';
      return value;
    } finally {
      stop({ ...labels, result } as Partial<Record<L | 'result', string>>);
    }
  }
}
