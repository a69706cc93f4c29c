import { Server } from '@grpc/grpc-js';
import { bindUnixSocket, draHealthV1alpha1, draV1, draV1beta1, registrationV1, shutdownServer } from '@sriov-dra/kubelet-api';
import type { Logger } from 'pino';
import type { ClaimPreparer } from './claim-preparer.ts';
import type { KeyedLocks } from './keyed-locks.ts';
import { createDraServices } from './dra-service.ts';
import { type DeviceHealthSource, HealthService } from './health-service.ts';
import { type PluginSocketPaths, ensureSocketDirectories, pluginSocketPaths, removeStaleSocket } from './plugin-sockets.ts';
import { type RegistrationState, RegistrationService } from './registration-server.ts';

/** Leaves 15 s of the kubelet's 45 s client timeout for the answer to travel and for clock skew. */
export const DEFAULT_CALL_DEADLINE_MS = 30_000;

export interface KubeletPluginOptions {
  readonly driverName: string;
  /** The kubelet's plugin registration directory (default /var/lib/kubelet/plugins_registry). */
  readonly registrarDir: string;
  /** The kubelet's plugins directory (default /var/lib/kubelet/plugins). */
  readonly pluginsDir: string;
  readonly preparer: ClaimPreparer;
  /** The per-claim serialization of prepare and unprepare, when other workers must share it. */
  readonly claimLocks?: KeyedLocks;
  /** Without one, NodeWatchResources answers UNIMPLEMENTED, which the kubelet treats as "no health". */
  readonly health?: DeviceHealthSource;
  readonly logger: Logger;
  readonly callDeadlineMs?: number;
  readonly onRegistrationStatus?: (state: RegistrationState) => void;
}

export interface KubeletPlugin {
  readonly paths: PluginSocketPaths;
  readonly registration: RegistrationState;
  /**
   * Stops accepting calls, lets calls in flight finish (each is bounded by its deadline), ends health
   * streams and removes both sockets. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/**
 * Serves the kubelet plugin: DRAPlugin v1 and v1beta1 (and DRAResourceHealth v1alpha1 when a health
 * source is given) on the DRA socket, then the Registration service on the registration socket. The
 * registration socket comes last because its appearance is what makes the kubelet dial the endpoint.
 */
export async function startKubeletPlugin(options: KubeletPluginOptions): Promise<KubeletPlugin> {
  const { driverName, logger } = options;
  const callDeadlineMs = options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS;
  const paths = pluginSocketPaths(options.registrarDir, options.pluginsDir, driverName);
  await ensureSocketDirectories(paths);
  for (const path of [paths.registration, paths.dra]) {
    if (await removeStaleSocket(path)) logger.info({ path }, 'removed a stale socket from an earlier run');
  }

  const dra = createDraServices({
    preparer: options.preparer,
    callDeadlineMs,
    logger,
    ...(options.claimLocks === undefined ? {} : { claimLocks: options.claimLocks }),
  });
  const health = options.health === undefined ? undefined : new HealthService(options.health, logger);
  const draServer = new Server();
  draServer.addService(draV1.DRAPluginService, dra.v1);
  draServer.addService(draV1beta1.DRAPluginService, dra.v1beta1);
  if (health !== undefined) draServer.addService(draHealthV1alpha1.DRAResourceHealthService, health.server);

  const registration = new RegistrationService({
    driverName,
    endpoint: paths.dra,
    logger,
    ...(options.onRegistrationStatus === undefined ? {} : { onStatus: options.onRegistrationStatus }),
  });
  const registrationServer = new Server();
  registrationServer.addService(registrationV1.RegistrationService, registration.server);

  await bindUnixSocket(draServer, paths.dra);
  try {
    await bindUnixSocket(registrationServer, paths.registration);
  } catch (error) {
    draServer.forceShutdown();
    await removeStaleSocket(paths.dra);
    throw error;
  }
  logger.info({ driver: driverName, registration: paths.registration, endpoint: paths.dra }, 'kubelet plugin serving');

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    // Removing the registration socket first makes the kubelet deregister instead of calling a plugin
    // that is going away.
    await removeStaleSocket(paths.registration);
    await shutdownServer(registrationServer, 1_000);
    health?.close();
    // Closing the listener unlinks the DRA socket path; the wire test checks that nothing is left.
    await shutdownServer(draServer, callDeadlineMs + 5_000);
    logger.info({ driver: driverName }, 'kubelet plugin stopped');
  };

  return {
    paths,
    get registration() {
      return registration.state;
    },
    stop: () => (stopping ??= stop()),
  };
}
