import type { Logger } from 'pino';
import { EventRecorder, type KubeClient, type LeaderElectionOptions, LeaderElector, startHealthServer } from '@sriov-dra/k8s';
import type { OperatorMode } from './coexistence/operator-mode.ts';
import { createOperatorInformers } from './controller/shared-informers.ts';
import { type DraSchemaFence, runWhileDraSchemaServed } from './crds/dra-schema-guard.ts';
import { type NodePolicyController, startNodePolicyController } from './dra/node-policy-controller.ts';
import { OperatorMetrics } from './metrics.ts';
import { type SriovNetworkController, startSriovNetworkController } from './network/sriov-network-controller.ts';

export interface OperatorSettings {
  readonly operatorNamespace: string;
  readonly resourcePrefix: string;
  readonly draEnabled: boolean;
  /** Whether the SriovNetwork controller runs (standalone) or upstream's keeps the NADs (alongside-upstream). */
  readonly mode: OperatorMode;
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
 * The operator process: the SriovNetwork controller (standalone mode only) and the node-policy DRA
 * controller run only while this instance holds the Lease, so two replicas never write the same generated
 * objects; a lost Lease stops them at once (their informers and queues go with them) and the campaign
 * resumes. The leader pauses them the same way while the policy CRD declares no spec.dra
 * (runWhileDraSchemaServed). /readyz passes on a standby, and on the leader once its controllers'
 * informers have listed (not while paused).
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
  const metrics = new OperatorMetrics();
  const common = { client, logger, recorder, metrics, operatorNamespace: settings.operatorNamespace, resourcePrefix: settings.resourcePrefix };

  async function lead(signal: AbortSignal): Promise<void> {
    leading = true;
    metrics.leader.set(1);
    // Only while the policy CRD serves spec.dra: policies pruned of it would withdraw what was generated for them.
    await runWhileDraSchemaServed({ client, logger, recorder, metrics }, signal, runControllers);
    leading = false;
    metrics.leader.set(0);
    logger.warn({ reason: String(signal.reason) }, 'no longer leading');
  }

  async function runControllers(signal: AbortSignal, fence: DraSchemaFence): Promise<void> {
    logger.info('starting the controllers');
    // The controllers subscribe to one set of watches, opened once they have. The Namespace watch exists in
    // standalone mode only, the one mode that runs the SriovNetwork controller.
    const informers = createOperatorInformers(client, logger, { operatorNamespace: settings.operatorNamespace, mode: settings.mode });
    const { namespaces } = informers;
    const networks: SriovNetworkController | undefined =
      namespaces === undefined ? undefined : startSriovNetworkController({ ...common, informers: { ...informers, namespaces } });
    const policies: NodePolicyController = startNodePolicyController({ ...common, informers, draEnabled: settings.draEnabled, fence });
    const controllers = networks === undefined ? [policies] : [networks, policies];
    const stopWatching = new AbortController();
    const watching = informers.start(stopWatching.signal);
    Promise.all(controllers.map((controller) => controller.waitForSync(signal))).then(
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
    synced = false;
    logger.warn({ reason: String(signal.reason) }, 'stopping the controllers');
    await Promise.all(controllers.map((controller) => controller.stop()));
    stopWatching.abort();
    await watching;
  }

  const health = await startHealthServer({
    port: settings.healthPort,
    portFlag: '--health-port',
    host: '0.0.0.0',
    registry: metrics.registry,
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
