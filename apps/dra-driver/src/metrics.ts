import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type CallResult = 'ok' | 'error';

/** Seconds; the kubelet gives a prepare 45 s, so the buckets reach past that. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds; a checkpoint write is a small file with two fsyncs. */
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * The driver's Prometheus metrics, in a registry of its own so two drivers in one process (a restart in
 * a test) never collide on registration. Named after the plugin calls and effects they measure.
 */
export class DriverMetrics {
  readonly registry = new Registry();
  readonly prepareRequests: Counter<'result'>;
  readonly prepareDuration: Histogram<'result'>;
  readonly unprepareRequests: Counter<'result'>;
  readonly unprepareDuration: Histogram<'result'>;
  readonly publishedDevices: Gauge;
  readonly withheldDevices: Gauge;
  readonly lastPublishTime: Gauge;
  readonly checkpointWriteDuration: Histogram<'result'>;
  readonly claimStatusFailures: Counter;
  readonly managedBindings: Gauge<'phase'>;
  readonly managedFailures: Counter<'operation' | 'reason'>;
  readonly repairStops: Counter<'reason'>;
  readonly repairDuration: Histogram<'result'>;
  readonly orphanShadows: Gauge;

  constructor() {
    const registers = [this.registry];
    this.prepareRequests = new Counter({
      name: 'sriov_dra_driver_prepare_requests_total',
      help: 'Claims the kubelet asked to prepare (NodePrepareResources), by result.',
      labelNames: ['result'],
      registers,
    });
    this.prepareDuration = new Histogram({
      name: 'sriov_dra_driver_prepare_duration_seconds',
      help: 'Time to prepare one claim, by result.',
      labelNames: ['result'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.unprepareRequests = new Counter({
      name: 'sriov_dra_driver_unprepare_requests_total',
      help: 'Claims the kubelet asked to unprepare (NodeUnprepareResources), by result.',
      labelNames: ['result'],
      registers,
    });
    this.unprepareDuration = new Histogram({
      name: 'sriov_dra_driver_unprepare_duration_seconds',
      help: 'Time to unprepare one claim, by result.',
      labelNames: ['result'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.publishedDevices = new Gauge({
      name: 'sriov_dra_driver_published_devices',
      help: 'Devices in the node pool as last published in ResourceSlices.',
      registers,
    });
    this.withheldDevices = new Gauge({
      name: 'sriov_dra_driver_withheld_devices',
      help: 'Devices a policy selects but the last publication withheld (unresolved configuration or device limits).',
      registers,
    });
    this.lastPublishTime = new Gauge({
      name: 'sriov_dra_driver_last_successful_publish_timestamp_seconds',
      help: 'Unix time of the last publication pass that brought the ResourceSlices up to date.',
      registers,
    });
    this.checkpointWriteDuration = new Histogram({
      name: 'sriov_dra_driver_checkpoint_write_duration_seconds',
      help: 'Time of one durable checkpoint write (temporary file, fsync, rename, directory fsync), by result.',
      labelNames: ['result'],
      buckets: WRITE_BUCKETS,
      registers,
    });
    this.claimStatusFailures = new Counter({
      name: 'sriov_dra_driver_claim_status_update_failures_total',
      help: 'ResourceClaim status.devices writes that failed after a successful prepare (the prepare itself succeeded).',
      registers,
    });
    this.managedBindings = new Gauge({
      name: 'sriov_dra_driver_managed_bindings',
      help: 'Managed bindings in the checkpoint, by phase (Pending, Ready, Deleting, ReleaseComplete).',
      labelNames: ['phase'],
      registers,
    });
    this.managedFailures = new Counter({
      name: 'sriov_dra_driver_managed_failures_total',
      help: 'Managed prepare, unprepare and repair failures, by operation and stable error code.',
      labelNames: ['operation', 'reason'],
      registers,
    });
    this.repairStops = new Counter({
      name: 'sriov_dra_driver_repair_stops_total',
      help: 'Claims the repair worker left alone because their Pod, claim or Node no longer match, by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.orphanShadows = new Gauge({
      name: 'sriov_dra_driver_orphan_shadows',
      help: 'Shadow NADs of this node that no checkpointed binding accounts for, as of the last repair pass (reported, never removed).',
      registers,
    });
    this.repairDuration = new Histogram({
      name: 'sriov_dra_driver_repair_pass_duration_seconds',
      help: 'Time of one repair worker pass over every checkpointed claim, by result.',
      labelNames: ['result'],
      buckets: CALL_BUCKETS,
      registers,
    });
  }

  /** Runs `operation`, observing its duration and outcome in `histogram` (and `counter` when given). */
  async time<T>(histogram: Histogram<'result'>, operation: () => Promise<T>, counter?: Counter<'result'>): Promise<T> {
    const stop = histogram.startTimer();
    let result: CallResult = 'error';
    try {
      const value = await operation();
      result = 'ok';
      return value;
    } finally {
      stop({ result });
      counter?.inc({ result });
    }
  }
}
