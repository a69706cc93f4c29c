import type { Logger } from 'pino';
import { MANAGED_BY_VALUE, labels } from '@sriov-dra/contract';
import { Informer, type InformerHandlers, type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { type OperatorMode, keepsSourceNads } from '../coexistence/operator-mode.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';

/** One informer's cache and events, shared by every controller of the process. */
export interface SharedInformer<T extends KubeObject> {
  /** Adds a handler set; every event reaches every subscriber, in subscription order. Subscribe before start. */
  subscribe(handlers: InformerHandlers<T>): void;
  get(key: string): T | undefined;
  list(): T[];
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** The operator's watches, each opened once however many controllers read it. */
export interface OperatorInformers {
  readonly sriovNetworks: SharedInformer<KubeObject & SriovNetwork>;
  readonly nads: SharedInformer<KubeObject>;
  /**
   * Standalone mode only: the SriovNetwork controller's, which alone reads Namespaces (a network waits for its
   * target namespace). Alongside the upstream operator that controller does not run, so no Namespace is watched.
   */
  readonly namespaces: SharedInformer<KubeObject> | undefined;
  readonly policies: SharedInformer<KubeObject>;
  readonly nodes: SharedInformer<KubeObject>;
  readonly nodeStates: SharedInformer<KubeObject>;
  /** What the node-policy controller generated and must compare against: DeviceAttributes of the operator namespace. */
  readonly deviceAttributes: SharedInformer<KubeObject>;
  /** And the per-node SriovResourcePolicies of the operator namespace. */
  readonly resourcePolicies: SharedInformer<KubeObject>;
  /** Runs every informer of the mode until `signal` aborts. */
  start(signal: AbortSignal): Promise<void>;
}

class FanOutInformer<T extends KubeObject> implements SharedInformer<T> {
  readonly informer: Informer<T>;
  private readonly subscribers: InformerHandlers<T>[] = [];

  constructor(client: KubeClient, type: ResourceType, options: { namespace?: string; labelSelector?: string; resyncMs: number }, logger: Logger) {
    this.informer = new Informer<T>(
      client,
      type,
      {
        onAdd: (object) => {
          for (const handlers of this.subscribers) handlers.onAdd?.(object);
        },
        onUpdate: (previous, current) => {
          for (const handlers of this.subscribers) handlers.onUpdate?.(previous, current);
        },
        onDelete: (object) => {
          for (const handlers of this.subscribers) handlers.onDelete?.(object);
        },
      },
      {
        ...options,
        onError: (err, phase) => {
          logger.warn({ err, phase, resource: type.resource }, 'informer restarting');
        },
      },
    );
  }

  subscribe(handlers: InformerHandlers<T>): void {
    this.subscribers.push(handlers);
  }

  get(key: string): T | undefined {
    return this.informer.get(key);
  }

  list(): T[] {
    return this.informer.list();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.informer.waitForSync(signal);
  }
}

/**
 * The informers both controllers wake from and the node-policy controller reconciles from. Shared, because
 * NADs and SriovNetworks were otherwise cached once per controller. Each one's
 * periodic resync replays its store to every subscriber: missed-event recovery for all of them at once.
 * Only the watches `mode`'s controllers read are opened, so the chart grants no other.
 */
export function createOperatorInformers(
  client: KubeClient,
  logger: Logger,
  options: { readonly operatorNamespace: string; readonly mode: OperatorMode; readonly resyncMs?: number },
): OperatorInformers {
  const resyncMs = options.resyncMs ?? 5 * 60_000;
  const namespaced = { namespace: options.operatorNamespace };
  const sriovNetworks = new FanOutInformer<KubeObject & SriovNetwork>(client, resourceTypes.sriovNetwork, { resyncMs }, logger);
  // Every NAD the operator reads is a source network's; the driver's Pod shadows, one per attached VF of every
  // Pod, are filtered out by the API server, so the cache and its watch traffic grow with networks, not Pods.
  const nads = new FanOutInformer<KubeObject>(
    client,
    resourceTypes.networkAttachmentDefinition,
    { labelSelector: `${labels.managedBy}!=${MANAGED_BY_VALUE}`, resyncMs: 0 },
    logger,
  );
  const namespaces = keepsSourceNads(options.mode) ? new FanOutInformer<KubeObject>(client, resourceTypes.namespace, { resyncMs: 0 }, logger) : undefined;
  const policies = new FanOutInformer<KubeObject>(client, resourceTypes.sriovNetworkNodePolicy, { ...namespaced, resyncMs }, logger);
  const nodes = new FanOutInformer<KubeObject>(client, resourceTypes.node, { resyncMs: 0 }, logger);
  const nodeStates = new FanOutInformer<KubeObject>(client, resourceTypes.sriovNetworkNodeState, { ...namespaced, resyncMs: 0 }, logger);
  const deviceAttributes = new FanOutInformer<KubeObject>(client, resourceTypes.deviceAttributes, { ...namespaced, resyncMs: 0 }, logger);
  const resourcePolicies = new FanOutInformer<KubeObject>(client, resourceTypes.sriovResourcePolicy, { ...namespaced, resyncMs: 0 }, logger);
  const all = [sriovNetworks, nads, policies, nodes, nodeStates, deviceAttributes, resourcePolicies, ...(namespaces === undefined ? [] : [namespaces])];
  return {
    sriovNetworks,
    nads,
    namespaces,
    policies,
    nodes,
    nodeStates,
    deviceAttributes,
    resourcePolicies,
    async start(signal) {
      await Promise.allSettled(all.map((shared) => shared.informer.run(signal)));
    },
  };
}
