import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { EventRecorder, type KubeClient, type KubeClientOptions, readNode, readResourceClaim, serviceKubeClient } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import { CheckpointStore } from './checkpoint/checkpoint-store.ts';
import { ClaimDeviceStatusWriter } from './device/claim-device-status.ts';
import { CdiSpecDirectory } from './device/cdi-spec-directory.ts';
import { DevicePreparer } from './device/device-preparer.ts';
import { DriverBinder } from './device/driver-binding.ts';
import { deviceNameOf } from './discovery/device-name.ts';
import { ScannerHealthSource } from './discovery/device-health-source.ts';
import { discoverInventory } from './discovery/discover.ts';
import { discoveredAttributes } from './discovery/discovered-attributes.ts';
import { DiscoveryScanner, watchSysfs } from './discovery/scanner.ts';
import { createSysfs } from './discovery/sysfs.ts';
import type { DriverFlags } from './driver-flags.ts';
import { writeFileAtomic } from '@sriov-dra/durable-files';
import { type HealthServer, startHealthServer } from '@sriov-dra/k8s';
import { startKubeletPlugin } from './kubelet/kubelet-plugin.ts';
import { MeteredPreparer } from './kubelet/metered-preparer.ts';
import { createManagedAttachment } from './managed/managed-attachment.ts';
import type { RepairWorker } from './managed/repair-worker.ts';
import { DriverMetrics } from './metrics.ts';
import type { InventoryDevice } from './policy/policy-devices.ts';
import type { PublishLimits } from './policy/publishable-device.ts';
import { SlicePublication } from './slices/slice-publication.ts';

export interface DriverDeps {
  readonly logger: Logger;
  /** Address the health endpoint binds; all IPv4 interfaces by default, where the kubelet's probes arrive. */
  readonly healthHost?: string;
  /** Period of the full sysfs rescan, which is also the health heartbeat (default 30 s). */
  readonly rescanIntervalMs?: number;
  /** Period of an unconditional ResourceSlice pass (default 60 s). */
  readonly sliceResyncMs?: number;
  readonly publishLimits?: PublishLimits;
  /** Period of the managed-binding repair pass (default 60 s); only with --multus-auto-attach. */
  readonly repairIntervalMs?: number;
}

export interface Driver {
  readonly nodeUID: string;
  /** The bound health port; absent when the health endpoint is disabled. */
  readonly healthPort: number | undefined;
  readonly metrics: DriverMetrics;
  /** Stops everything started, in reverse order of starting. Safe to call more than once. */
  stop(): Promise<void>;
}

function kubeClient(flags: DriverFlags): KubeClient {
  const options: KubeClientOptions = { qps: flags.kubeApiQps, burst: flags.kubeApiBurst, userAgent: `${DRIVER_NAME}/dra-driver` };
  return serviceKubeClient(flags.kubeconfig, options);
}

/**
 * Starts the node driver: API client, the Node's identity, the checkpoint, hardware discovery,
 * ResourceSlice publication, the health endpoint and the kubelet plugin, in that order. Anything that
 * leaves the driver unable to act correctly — an unreadable Node, a corrupt or unknown-version
 * checkpoint (left untouched), an unreadable PCI bus, sockets that cannot be served — rejects with a
 * typed error after undoing what had started. Publication failures after startup are retried, not fatal.
 */
export async function startDriver(flags: DriverFlags, deps: DriverDeps): Promise<Driver> {
  const { logger } = deps;
  const rescanIntervalMs = deps.rescanIntervalMs ?? 30_000;
  const cleanups: { readonly name: string; readonly run: () => Promise<void> | void }[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const cleanup of cleanups.splice(0).reverse()) {
        try {
          await cleanup.run();
        } catch (error) {
          logger.error({ err: error, step: cleanup.name }, 'stopping a driver component failed');
        }
      }
    })());

  try {
    const metrics = new DriverMetrics();
    const client = kubeClient(flags);
    cleanups.push({
      name: 'api client',
      run: () => {
        client.close();
      },
    });

    // The Node's UID owns the ResourceSlices; a Node that cannot be read is an impossible node identity.
    const node = await readNode(client, flags.nodeName);
    logger.info({ node: flags.nodeName, nodeUID: node.metadata.uid, mode: flags.configurationMode }, 'serving node');

    const pluginDirectory = join(flags.kubeletPluginsDirectoryPath, DRIVER_NAME);
    await mkdir(pluginDirectory, { recursive: true });
    // A write cut short by a crash leaves its temporary file; only this process writes here, and not yet.
    const abandonedCheckpoints = await CheckpointStore.removeAbandonedWrites(pluginDirectory);
    if (abandonedCheckpoints.length > 0)
      logger.info({ dir: pluginDirectory, files: abandonedCheckpoints }, 'removed unfinished checkpoint writes of an earlier process');
    const checkpoint = await CheckpointStore.open({
      directory: pluginDirectory,
      write: (path, data) => metrics.time(metrics.checkpointWriteDuration, () => writeFileAtomic(path, data)),
    });
    logger.info({ file: checkpoint.file, claims: checkpoint.claims().length }, 'checkpoint loaded');

    const sysfs = createSysfs(flags.sysfsRoot);
    const scanner = new DiscoveryScanner({
      scan: async () => {
        const scanned = await discoverInventory(sysfs);
        // The first scan runs below, after `health` exists.
        health.scanned(scanned.ok);
        return scanned;
      },
      watch: watchSysfs(flags.sysfsRoot),
      intervalMs: rescanIntervalMs,
    });
    const health = new ScannerHealthSource({ scanner, poolName: flags.nodeName, heartbeatMs: rescanIntervalMs });
    const first = await scanner.rescan();
    if (first.kind === 'failed') throw first.error;
    const { inventory } = scanner.state;
    for (const skipped of inventory.skipped) logger.warn({ pciAddress: skipped.pciAddress, err: skipped.error }, 'skipped a device discovery cannot describe');
    logger.info({ physicalFunctions: inventory.physicalFunctions.length, virtualFunctions: inventory.virtualFunctions.length }, 'discovered SR-IOV devices');
    const inventoryDevices = (): InventoryDevice[] =>
      scanner.state.inventory.virtualFunctions.map((vf) => ({ name: deviceNameOf(vf.pciAddress), vf, attributes: discoveredAttributes(vf) }));

    const events = new EventRecorder(client, {
      reportingController: DRIVER_NAME,
      reportingInstance: `${DRIVER_NAME}-${flags.nodeName}`,
      onError: (error) => {
        logger.warn({ err: error }, 'could not record an event');
      },
    });
    cleanups.push({ name: 'event recorder', run: () => events.close() });
    let published = false;
    const publication = new SlicePublication({
      client,
      driver: DRIVER_NAME,
      nodeName: flags.nodeName,
      namespace: flags.namespace,
      limits: deps.publishLimits ?? { listAttributes: false },
      inventory: inventoryDevices,
      ...(deps.sliceResyncMs === undefined ? {} : { resyncMs: deps.sliceResyncMs }),
      events,
      onPass: (resolution, result) => {
        published = true;
        metrics.publishedDevices.set(resolution.eligible.length);
        metrics.withheldDevices.set(resolution.withheld.length);
        metrics.lastPublishTime.setToCurrentTime();
        if (result.created + result.updated + result.deleted > 0) {
          logger.info({ ...result, devices: resolution.eligible.length, withheld: resolution.withheld.length }, 'published ResourceSlices');
        }
      },
      onError: (error) => {
        logger.warn({ err: error }, 'ResourceSlice publication failed; retrying');
      },
    });
    const publishing = new AbortController();
    const publicationRun = publication.run(publishing.signal).catch((error: unknown) => {
      // A request cut short by stopping (or by undoing a failed start) is not a failure of its own.
      if (publishing.signal.aborted) return;
      logger.error({ err: error }, 'ResourceSlice publication stopped');
    });
    cleanups.push({
      name: 'slice publication',
      run: async () => {
        publishing.abort();
        await publicationRun;
      },
    });
    const unsubscribe = scanner.subscribe((event) => {
      if (event.kind === 'failed') {
        logger.warn({ err: event.error }, 'sysfs rescan failed; keeping the last inventory');
        return;
      }
      const { added, removed, changed } = event.diff.inventoryChanges;
      if (added.length + removed.length + changed.length > 0) publication.inventoryChanged();
      for (const change of event.diff.healthChanges)
        logger.info({ device: change.device, pciAddress: change.pciAddress, health: change.current }, 'device health changed');
    });
    cleanups.push({
      name: 'inventory subscription',
      run: () => {
        unsubscribe();
      },
    });

    let registered = false;
    let repair: RepairWorker | undefined;
    let healthServer: HealthServer | undefined;
    if (flags.healthcheckPort >= 0) {
      healthServer = await startHealthServer({
        port: flags.healthcheckPort,
        portFlag: '--healthcheck-port',
        host: deps.healthHost ?? '0.0.0.0',
        registry: metrics.registry,
        readiness: [
          { name: 'checkpoint loaded', ready: () => true },
          { name: 'kubelet registration', ready: () => registered },
          { name: 'first ResourceSlice publication', ready: () => published },
          { name: 'first managed repair pass', ready: () => !flags.multusAutoAttach || (repair?.passes ?? 0) > 0 },
        ],
      });
      const server = healthServer;
      cleanups.push({ name: 'health server', run: () => server.close() });
      logger.info({ port: server.port }, 'health endpoint serving /healthz, /readyz and /metrics');
    }

    const cdi = new CdiSpecDirectory(flags.cdiRoot);
    const abandonedSpecs = await cdi.removeAbandonedWrites();
    if (abandonedSpecs.length > 0) logger.info({ dir: cdi.root, files: abandonedSpecs }, 'removed unfinished CDI spec writes of an earlier process');
    const devicePreparer = new DevicePreparer({
      nodeName: flags.nodeName,
      readClaim: (namespace, name, signal) => readResourceClaim(client, namespace, name, signal),
      vfsByDevice: () => new Map(scanner.state.inventory.virtualFunctions.map((vf) => [deviceNameOf(vf.pciAddress), vf])),
      binder: new DriverBinder({ sysfsRoot: flags.sysfsRoot }),
      cdi,
      checkpoint,
      sysfsRoot: flags.sysfsRoot,
      logger,
    });
    await mkdir(flags.cdiRoot, { recursive: true });
    const managed = flags.multusAutoAttach
      ? createManagedAttachment({
          client,
          checkpoint,
          node: { name: flags.nodeName, uid: node.metadata.uid },
          driverName: DRIVER_NAME,
          devices: devicePreparer,
          eligible: (signal) => publication.eligibleDevices(signal),
          pciOf: (device) => scanner.state.inventory.virtualFunctions.find((vf) => deviceNameOf(vf.pciAddress) === device)?.pciAddress,
          metrics,
          events,
          logger,
          repairIntervalMs: deps.repairIntervalMs ?? 60_000,
        })
      : undefined;
    if (managed !== undefined) {
      const { nodeWatch, bindingsWatch } = managed;
      nodeWatch.start();
      cleanups.push({ name: 'node watch', run: () => nodeWatch.stop() });
      bindingsWatch.start();
      cleanups.push({ name: 'Pod and shadow watches', run: () => bindingsWatch.stop() });
      // §8.3: the first pass runs before managed readiness, once the watches have listed; /readyz waits for it.
      const worker = managed.repair;
      repair = worker;
      worker.start();
      cleanups.push({ name: 'repair worker', run: () => worker.stop() });
    }
    const preparer = new MeteredPreparer(
      new ClaimDeviceStatusWriter(managed?.preparer ?? devicePreparer, {
        client,
        driverName: DRIVER_NAME,
        logger,
        onFailure: () => {
          metrics.claimStatusFailures.inc();
        },
      }),
      metrics,
    );
    const plugin = await startKubeletPlugin({
      driverName: DRIVER_NAME,
      registrarDir: flags.kubeletRegistrarDirectoryPath,
      pluginsDir: flags.kubeletPluginsDirectoryPath,
      preparer,
      ...(managed === undefined ? {} : { claimLocks: managed.claimLocks }),
      health,
      logger,
      onRegistrationStatus: (state) => {
        registered = state.state === 'registered';
      },
    });
    cleanups.push({ name: 'kubelet plugin', run: () => plugin.stop() });

    scanner.start();
    cleanups.push({
      name: 'discovery scanner',
      run: () => {
        scanner.stop();
      },
    });
    health.start();
    cleanups.push({
      name: 'device health',
      run: () => {
        health.stop();
      },
    });

    return { nodeUID: node.metadata.uid, healthPort: healthServer?.port, metrics, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
