import type { EventRecorder, KubeClient } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import { MANAGED_BINDING_PHASES } from '../checkpoint/checkpoint-record.ts';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import type { DevicePreparer } from '../device/device-preparer.ts';
import { KeyedLocks } from '../kubelet/keyed-locks.ts';
import type { DriverMetrics } from '../metrics.ts';
import { managedBindingsOf } from './binding-records.ts';
import { failureReason } from './failure-reason.ts';
import { ManagedPreparer, type ManagedPreparerOptions } from './managed-preparer.ts';
import { NodeBindingsWatch } from './node-bindings-watch.ts';
import { NodeWatch } from './node-watch.ts';
import { RepairWorker } from './repair-worker.ts';

export interface ManagedAttachmentOptions {
  readonly client: KubeClient;
  readonly checkpoint: CheckpointStore;
  readonly node: { readonly name: string; readonly uid: string };
  readonly driverName: string;
  readonly devices: DevicePreparer;
  readonly eligible: ManagedPreparerOptions['eligible'];
  readonly pciOf: ManagedPreparerOptions['pciOf'];
  readonly metrics: DriverMetrics;
  readonly events: EventRecorder;
  readonly logger: Logger;
  readonly repairIntervalMs: number;
}

export interface ManagedAttachment {
  readonly preparer: ManagedPreparer;
  /** Shared with the kubelet plugin runtime, so repair and kubelet calls on one claim never overlap. */
  readonly claimLocks: KeyedLocks;
  readonly repair: RepairWorker;
  /** The Node the preparer checks each claim's node identity against; started and stopped with the driver. */
  readonly nodeWatch: NodeWatch;
  /** The node's Pods and shadows the repair worker checks its bindings against; started and stopped with the driver. */
  readonly bindingsWatch: NodeBindingsWatch;
}

/**
 * Managed attachment (--multus-auto-attach): the preparer that serves the kubelet and the repair worker
 * that keeps the same bindings converged between calls, sharing the claim and Pod locks; bindings by
 * phase, failures by stable code and repair passes go to the metrics, and each failure to an Event on
 * the claim (its message names objects and codes, never CNI configuration or IPAM data).
 */
export function createManagedAttachment(options: ManagedAttachmentOptions): ManagedAttachment {
  const { checkpoint, metrics, logger, events } = options;
  const claimLocks = new KeyedLocks();
  const podLocks = new KeyedLocks();
  const observeBindings = (): void => {
    const counts = new Map<string, number>(MANAGED_BINDING_PHASES.map((phase) => [phase, 0]));
    for (const binding of checkpoint.claims().flatMap(managedBindingsOf)) counts.set(binding.phase, (counts.get(binding.phase) ?? 0) + 1);
    for (const [phase, value] of counts) metrics.managedBindings.set({ phase }, value);
  };
  const store = { client: options.client, checkpoint, nodeName: options.node.name };
  const nodeWatch = new NodeWatch(options.client, options.node.name, (error) => {
    logger.warn({ err: error }, 'watching the Node failed; retrying');
  });
  const bindingsWatch = new NodeBindingsWatch(options.client, options.node, (error, watched) => {
    logger.warn({ err: error, watched }, "watching the node's Pods or shadows failed; retrying");
  });
  const preparer = new ManagedPreparer({
    ...store,
    node: options.node,
    driverName: options.driverName,
    devices: options.devices,
    eligible: options.eligible,
    pciOf: options.pciOf,
    watchedNode: (signal) => nodeWatch.current(signal),
    podLocks,
    onPrepared: (ref, outcome) => {
      observeBindings();
      logger.info({ claimUID: ref.uid, shadows: outcome.shadows, selectionsWritten: outcome.selectionsWritten }, 'managed bindings ready');
    },
    onReleased: (ref, outcome) => {
      observeBindings();
      logger.info({ claimUID: ref.uid, shadows: outcome.shadows, finalizers: outcome.finalizers }, 'managed bindings released');
    },
    onFailure: (operation, ref, error) => {
      observeBindings();
      metrics.managedFailures.inc({ operation, reason: failureReason(error) });
      // The recorder reports its own failures; an Event never holds up the kubelet's answer.
      void events.record(
        { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
        {
          type: 'Warning',
          reason: failureReason(error),
          action: operation === 'prepare' ? 'PrepareManagedNetworks' : 'ReleaseManagedNetworks',
          note: error instanceof Error ? error.message : String(error),
        },
      );
    },
  });
  let reportedOrphans = new Set<string>();
  const repair = new RepairWorker({
    store,
    host: options.devices,
    node: options.node,
    driverName: options.driverName,
    claimLocks,
    podLocks,
    watchedNode: (signal) => nodeWatch.current(signal),
    watched: bindingsWatch,
    intervalMs: options.repairIntervalMs,
    logger,
    onPass: (result, seconds) => {
      observeBindings();
      metrics.repairDuration.observe({ result: result === undefined ? 'error' : 'ok' }, seconds);
      if (result === undefined) return;
      metrics.orphanShadows.set(result.orphans.length);
      const current = new Set(result.orphans.map((orphan) => orphan.uid));
      for (const orphan of result.orphans) {
        if (reportedOrphans.has(orphan.uid)) continue;
        // An orphan keeps its finalizer until an administrator acts: `sriov-dra orphans` lists them all.
        logger.warn(
          { shadow: `${orphan.namespace}/${orphan.name}`, uid: orphan.uid, reason: orphan.reason, podUID: orphan.podUID, difference: orphan.difference },
          'orphaned shadow',
        );
      }
      reportedOrphans = current;
      for (const [reason, count] of result.stopped) metrics.repairStops.inc({ reason }, count);
      for (const [reason, count] of result.failed) metrics.managedFailures.inc({ operation: 'repair', reason }, count);
      if (result.repaired + result.released > 0) logger.info({ repaired: result.repaired, released: result.released }, 'repair pass changed bindings');
    },
  });
  return { preparer, claimLocks, repair, nodeWatch, bindingsWatch };
}
