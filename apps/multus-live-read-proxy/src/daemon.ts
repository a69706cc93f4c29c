import type { Logger } from 'pino';
import { type HealthServer, type KubeClient, type KubeClientOptions, serviceKubeClient, startHealthServer } from '@sriov-dra/k8s';
import { removeAbandonedWrites } from './cache/abandoned-writes.ts';
import { checkChrootDir } from './chroot-dir.ts';
import { type DaemonConfig, delegateBinDirs, effectiveNetConf, ignoredDaemonConfigKeys, parseDaemonConfig, readDaemonConfigFile } from './daemon-config.ts';
import type { DaemonFlags } from './daemon-flags.ts';
import { type EntryConfigWriter, startEntryConfigWriter } from './entry-config/entry-config-writer.ts';
import { installUserEntryConfig } from './entry-config/user-entry-config.ts';
import { DaemonMetrics } from './metrics.ts';
import { type BuildIdentity, buildIdentity } from './preflight/build-identity.ts';
import { type RequestSettings, createCniHandler } from './pipeline/cni-handler.ts';
import { createSharedPodNetworkInformers, runSharedPodNetworkInformers } from './reads/shared-informers.ts';
import type { CniRequest } from './server/cni-request.ts';
import type { DaemonAbout } from './server/daemon-about.ts';
import { type DaemonServer, startDaemonServer } from './server/daemon-server.ts';
import { delNetwork } from './cni/invoke.ts';
import { timedDelegate } from './pipeline/cni-handler.ts';
import { catchUpGonePods } from './teardown/gone-pod-catch-up.ts';
import { type RetrySchedule, TEARDOWN_RETRY } from './teardown/retry-schedule.ts';
import { TeardownWorker } from './teardown/teardown-worker.ts';

/** Deadline of one delegate network's ADD or DEL; the runtime's own CNI deadline is minutes. */
const DELEGATE_TIMEOUT_MS = 60_000;

export interface Daemon {
  readonly socketPath: string;
  /** Port of /healthz, /readyz and /metrics, when served. */
  readonly metricsPort: number | undefined;
  readonly metrics: DaemonMetrics;
  /**
   * The node's CNI entry configuration: <cniConfigDir>/00-multus.conf, kept generated in auto mode
   * (multusConfigFile "auto"), else the copy of multusConfigFile installed at start.
   */
  readonly entryConfigPath: string | undefined;
  /** /readyz fails from now on, then everything in flight is answered and the process may exit. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  readonly logger: Logger;
  /**
   * Where the delegates' libcni results are kept. Upstream Multus gives libcni its cniDir, so by default
   * both daemons keep them in `<cniDir>/results` and a node can move between them.
   */
  readonly resultCacheDir?: string;
  /** When the daemon retries a teardown that did not finish; 1 s doubling to 5 min by default. */
  readonly teardownRetry?: RetrySchedule;
  /** The build the daemon reports on GET /version; default this package's own. */
  readonly buildIdentity?: BuildIdentity;
}

/** The delegate cache directory the daemon's own configuration names (Multus's default without one): where start-up looks. */
function daemonCniDir(config: DaemonConfig): string {
  return config.cniDir === '' ? '/var/lib/cni/multus' : config.cniDir;
}

/** The settings of one request: the shim's stdin configuration overlaid with the daemon's (Multus's rule). */
function settingsFor(config: DaemonConfig, resultCacheDir: string | undefined): (request: CniRequest) => RequestSettings {
  return (request) => {
    const conf = effectiveNetConf(config, request.config);
    return {
      plan: {
        clusterNetwork: conf.clusterNetwork,
        defaultNetworks: conf.defaultNetworks,
        multusNamespace: conf.multusNamespace,
        systemNamespaces: conf.systemNamespaces,
        namespaceIsolation: conf.namespaceIsolation,
        nonIsolatedNamespaces: conf.globalNamespaces,
      },
      confDir: conf.confDir,
      binDirs: delegateBinDirs(conf, request.path),
      // The daemon's own key only: upstream reads it from daemon-config.json, never from the shim's configuration.
      chrootDir: config.chrootDir,
      resultCacheDir: resultCacheDir ?? conf.cniDir,
      delegateTimeoutMs: DELEGATE_TIMEOUT_MS,
      cniDir: conf.cniDir,
      liveNetworkConfigOnAdd: conf.liveNetworkConfigOnAdd,
      readinessIndicatorFile: conf.readinessindicatorfile,
      // The daemon's own key, like chrootDir: never taken from the shim's configuration.
      podResourcesSocket: config.podResourcesSocket,
    };
  };
}

async function aboutDaemon(config: DaemonConfig, identity: BuildIdentity | undefined): Promise<DaemonAbout> {
  const build = identity ?? (await buildIdentity(process.env));
  return {
    build: { version: build.version, commit: build.commit ?? null },
    config: { path: config.path, liveNetworkConfigOnAdd: config.liveNetworkConfigOnAdd, chrootDir: config.chrootDir, cniDir: config.cniDir },
  };
}

function kubeClient(flags: DaemonFlags): KubeClient {
  const options: KubeClientOptions = { qps: flags.kubeApiQps, burst: flags.kubeApiBurst, userAgent: 'sriov-dra/multus-live-read-proxy' };
  return serviceKubeClient(flags.kubeconfig, options);
}

/**
 * Starts the node's Multus daemon: the shared Pod (this node's) and NAD informers, the shim's unix socket,
 * and the TCP health and metrics endpoint. A configuration error throws before anything listens.
 */
export async function startDaemon(flags: DaemonFlags, options: DaemonOptions): Promise<Daemon> {
  const { logger } = options;
  const config = parseDaemonConfig(await readDaemonConfigFile(flags.config), flags.config);
  await checkChrootDir(config);
  for (const { key, reason } of ignoredDaemonConfigKeys(config)) {
    logger.warn({ key, config: config.path }, `daemon-config.json key ${key} is not acted on: ${reason}`);
  }
  for (const { directory, files } of await removeAbandonedWrites(config, options.resultCacheDir)) {
    logger.info({ dir: directory, files }, 'removed unfinished writes of an earlier process');
  }
  // As upstream, before the socket serves; unlike upstream, a file that cannot be installed stops the start.
  const installed = config.multusConfigFile === 'auto' ? undefined : await installUserEntryConfig(config);
  if (installed !== undefined) {
    logger.info(
      { source: installed.source, entryConfig: installed.path, outcome: installed.outcome },
      installed.outcome === 'copied' ? `copied ${installed.source} to ${installed.path}` : `${installed.path} already holds ${installed.source}`,
    );
  }
  const client = kubeClient(flags);
  const metrics = new DaemonMetrics();
  const requestSettings = settingsFor(config, options.resultCacheDir);
  const teardowns = new TeardownWorker({
    settingsFor: requestSettings,
    delNetwork: timedDelegate(metrics, 'DEL', delNetwork),
    schedule: options.teardownRetry ?? TEARDOWN_RETRY,
    metrics,
    logger,
  });
  const shared = createSharedPodNetworkInformers(client, flags.nodeName, {
    onError: (error, phase) => {
      logger.warn({ err: error, phase }, 'shared informer restarting');
    },
  });
  const running = new AbortController();
  // As upstream, a daemon whose own configuration leaves ADDs on the informers caches the NADs from its start.
  const informers = runSharedPodNetworkInformers(shared, running.signal, config.liveNetworkConfigOnAdd ? 'on-first-read' : 'with-daemon').catch(
    (error: unknown) => {
      logger.error({ err: error }, 'shared informers stopped');
    },
  );
  let server: DaemonServer | undefined;
  let health: HealthServer | undefined;
  let entryConfig: EntryConfigWriter | undefined;
  const cniDir = daemonCniDir(config);
  try {
    // Teardowns left pending by an earlier process resume before any request can touch their containers.
    await teardowns.resume(cniDir);
    server = await startDaemonServer({
      socketDir: config.socketDir,
      handler: createCniHandler({ settingsFor: requestSettings, shared, client, logger, metrics, teardowns }),
      logger,
      about: await aboutDaemon(config, options.buildIdentity),
    });
    if (flags.metricsPort >= 0) {
      health = await startHealthServer({
        port: flags.metricsPort,
        portFlag: '--metrics-port',
        host: '0.0.0.0',
        registry: metrics.registry,
        readiness: [
          // Live ADDs do not need the informers; informer-mode ADDs and upstream parity do. The NAD informer
          // counts once started: a daemon reading live starts it only for a request that reads it.
          { name: 'Pod informer synced', ready: () => shared.pods.hasSynced() },
          { name: 'NAD informer synced', ready: () => !shared.watchingNetworkAttachmentDefinitions() || shared.networkAttachmentDefinitions.hasSynced() },
        ],
      });
    }
    // As upstream: the runtime finds the shim's configuration only once the socket it names is serving.
    if (config.multusConfigFile === 'auto') entryConfig = await startEntryConfigWriter(config, { logger });
  } catch (error) {
    running.abort();
    await informers;
    await health?.close();
    await server?.close();
    await teardowns.stop();
    client.close();
    throw error;
  }
  logger.info(
    {
      socket: server.socketPath,
      metricsPort: health?.port,
      liveNetworkConfigOnAdd: config.liveNetworkConfigOnAdd,
      chrootDir: config.chrootDir,
      entryConfig: entryConfig?.path ?? installed?.path,
    },
    'daemon serving',
  );
  // The DELs missed while no daemon served the node, in the background: the API server may be slow to
  // answer right after a node's reboot.
  const catchUp = catchUpGonePods(cniDir, { client, teardowns, logger }, running.signal).catch((error: unknown) => {
    if (running.signal.aborted) return;
    logger.error({ err: error, cniDir }, 'start-up teardown catch-up failed; pending teardowns are retried at the next DEL or start');
  });
  const serving = server;
  const writer = entryConfig;
  return {
    socketPath: serving.socketPath,
    metricsPort: health?.port,
    metrics,
    entryConfigPath: writer?.path ?? installed?.path,
    async stop() {
      // No new sandbox is pointed at a daemon that is going away (upstream removes the file likewise).
      // An installed multusConfigFile stays, as upstream leaves it: it is the operator's file.
      await writer?.stop();
      serving.beginShutdown();
      await serving.close();
      await health?.close();
      running.abort();
      await informers;
      // Aborts a teardown the catch-up is running, so the catch-up ends too.
      await teardowns.stop();
      await catchUp;
      client.close();
    },
  };
}
