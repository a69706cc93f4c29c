import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { EventRecorder, type KubeClient, type LeaderElectionOptions, LeaderElector, startHealthServer } from '@sriov-dra/k8s';
import { createOperatorInformers } from './controller/shared-informers.ts';
import { type NodePolicyController, startNodePolicyController } from './dra/node-policy-controller.ts';
import { type SriovNetworkController, startSriovNetworkController } from './network/sriov-network-controller.ts';

export interface OperatorSettings {
  readonly operatorNamespace: string;
  readonly resourcePrefix: string;
  readonly draEnabled: boolean;
  /** Port of /healthz, /readyz and /metrics; 0 picks a free port. */
  readonly healthPort: number;
  /** Absent: this instance leads alone (one replica, or tests). */
  readonly leaderElection?: Pick<LeaderElectionOptions, 'namespace' | 'name' | 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>;
}

export interface Operator {
  readonly healthPort: number;
  isLeading(): boolean;
  stop(): Promise<void>;
}

/**
 * The operator process: the SriovNetwork controller and the node-policy DRA controller run only while this
 * instance holds the Lease, so two replicas never write the same generated objects; a lost Lease stops
 * them at once (their informers and queues go with them) and the campaign resumes. /readyz passes on a
 * standby, and on the leader once both controllers' informers have listed.
 */
export async function startOperator(settings: OperatorSettings, client: KubeClient, logger: Logger): Promise<Operator> {
  const abort = new AbortController();
  let leading = false;
  let synced = false;
  const recorder = new EventRecorder(client, {
    reportingController: 'sriov-dra/node-policy-operator',
    reportingInstance: settings.leaderElection?.identity ?? 'node-policy-operator',
    onError: (err) => {
      logger.warn({ err }, 'an Event could not be recorded');
    },
  });
  const common = { client, logger, recorder, operatorNamespace: settings.operatorNamespace, resourcePrefix: settings.resourcePrefix };

  async function lead(signal: AbortSignal): Promise<void> {
    leading = true;
    logger.info('leading: starting the controllers');
    // Both controllers subscribe to one set of watches, opened once they have.
    const informers = createOperatorInformers(client, logger, { operatorNamespace: settings.operatorNamespace });
    const networks: SriovNetworkController = startSriovNetworkController({ ...common, informers });
    const policies: NodePolicyController = startNodePolicyController({ ...common, informers, draEnabled: settings.draEnabled });
    const stopWatching = new AbortController();
    const watching = informers.start(stopWatching.signal);
    Promise.all([networks.waitForSync(signal), policies.waitForSync(signal)]).then(
      () => {
        synced = true;
      },
      () => undefined,
    );
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else
        signal.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
    });
    leading = false;
    synced = false;
    logger.warn({ reason: String(signal.reason) }, 'no longer leading: stopping the controllers');
    await Promise.all([networks.stop(), policies.stop()]);
    stopWatching.abort();
    await watching;
  }

  const health = await startHealthServer({
    port: settings.healthPort,
    host: '0.0.0.0',
    registry: new Registry(),
    readiness: [{ name: 'controllers', ready: () => !leading || synced }],
  });
  const election = settings.leaderElection;
  const running =
    election === undefined
      ? lead(abort.signal)
      : new LeaderElector(client, {
          ...election,
          onStartedLeading: lead,
          onError: (err) => {
            logger.error({ err }, 'leader election');
          },
        }).run(abort.signal);

  return {
    healthPort: health.port,
    isLeading: () => leading,
    async stop() {
      abort.abort();
      await running.catch((error: unknown) => {
        logger.error({ err: error }, 'operator stopped with an error');
      });
      await recorder.close();
      await health.close();
    },
  };
}
