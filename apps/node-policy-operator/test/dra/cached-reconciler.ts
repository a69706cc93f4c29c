// The node-policy reconciler as the controller runs it — reading the operator's informers — for tests that
// call it step by step: each call first waits until every cache holds what the API server holds, so a step
// sees the writes made before it, as the running controller does once their events have arrived.
import pino from 'pino';
import { type KubeClient, type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { type OperatorInformers, type SharedInformer, createOperatorInformers } from '../../src/controller/shared-informers.ts';
import { type NodePolicyReconcileSummary, type NodePolicyReconcilerOptions, reconcileNodePolicies } from '../../src/dra/node-policy-reconciler.ts';
import { NodeProblemReports } from '../../src/dra/node-problem-reports.ts';

export interface CachedReconciler {
  readonly informers: OperatorInformers;
  /** The options each reconciliation gets, for a caller that times it without waiting for the caches. */
  readonly options: NodePolicyReconcilerOptions;
  /** Reconciles once the caches caught up; `overrides` replace options for this call only. */
  reconcile(overrides?: Partial<NodePolicyReconcilerOptions>): Promise<NodePolicyReconcileSummary>;
  /** Resolves once every cache holds what the API server holds (names and resourceVersions). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

async function stored(admin: KubeClient, type: ResourceType, namespace: string | undefined): Promise<Map<string, string>> {
  const items = (await admin.list(type, { namespace })).items;
  return new Map(items.map((item) => [`${item.metadata.namespace ?? ''}/${item.metadata.name}`, item.metadata.resourceVersion]));
}

function cached(informer: SharedInformer<KubeObject>): Map<string, string> {
  return new Map(informer.list().map((item) => [`${item.metadata.namespace ?? ''}/${item.metadata.name}`, item.metadata.resourceVersion]));
}

/**
 * Starts the operator's informers on `options.client` and returns a reconciler reading them. `admin` compares
 * the caches with the API server; the reconciler's own requests stay those of `options.client`.
 */
export async function startCachedReconciler(
  options: Omit<NodePolicyReconcilerOptions, 'informers' | 'nodeProblems'>,
  admin: KubeClient,
): Promise<CachedReconciler> {
  const informers = createOperatorInformers(options.client, pino({ level: 'silent' }), {
    operatorNamespace: options.operatorNamespace,
    mode: 'alongside-upstream',
  });
  const stop = new AbortController();
  const running = informers.start(stop.signal);
  const namespace = options.operatorNamespace;
  const compared: [SharedInformer<KubeObject>, ResourceType, string | undefined][] = [
    [informers.policies, resourceTypes.sriovNetworkNodePolicy, namespace],
    [informers.nodes, resourceTypes.node, undefined],
    [informers.nodeStates, resourceTypes.sriovNetworkNodeState, namespace],
    [informers.sriovNetworks, resourceTypes.sriovNetwork, undefined],
    [informers.nads, resourceTypes.networkAttachmentDefinition, undefined],
    [informers.deviceAttributes, resourceTypes.deviceAttributes, namespace],
    [informers.resourcePolicies, resourceTypes.sriovResourcePolicy, namespace],
  ];
  await Promise.all(compared.map(([informer]) => informer.waitForSync()));
  const settled = (): Promise<void> =>
    waitFor(
      'the informers’ caches hold what the API server holds',
      async () => {
        for (const [informer, type, at] of compared) {
          const want = await stored(admin, type, at);
          const have = cached(informer);
          if (want.size !== have.size || [...want].some(([key, version]) => have.get(key) !== version)) return false;
        }
        return true;
      },
      { timeoutMs: 15_000 },
    );
  const full: NodePolicyReconcilerOptions = { ...options, informers, nodeProblems: new NodeProblemReports() };
  return {
    informers,
    options: full,
    settled,
    async reconcile(overrides = {}) {
      await settled();
      return reconcileNodePolicies({ ...full, ...overrides });
    },
    async stop() {
      stop.abort();
      await running;
    },
  };
}
