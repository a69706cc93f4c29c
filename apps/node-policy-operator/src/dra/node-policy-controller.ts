import type { KubeObject } from '@sriov-dra/k8s';
import { WorkQueue } from '@sriov-dra/k8s';
import { type ControllerLoop, startControllerLoop } from '../controller/controller-loop.ts';
import type { SharedInformer } from '../controller/shared-informers.ts';
import type { OperatorMetrics } from '../metrics.ts';
import { renderSourceNad } from '../render/source-nad.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';
import { referenceKey, referencedSriovNetworks } from './dra-plan.ts';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE } from './generated-labels.ts';
import type { NodePolicy } from './node-policy.ts';
import { readNodeInventory } from './node-inventory.ts';
import {
  type NodePolicyInformers,
  type NodePolicyReconcileSummary,
  type NodePolicyReconcilerOptions,
  reconcileNodePolicies,
} from './node-policy-reconciler.ts';
import { NodeProblemReports } from './node-problem-reports.ts';

/** The whole inventory is one plan, so every trigger queues the same key. */
const INVENTORY_KEY = 'inventory';

export interface NodePolicyControllerOptions extends Omit<NodePolicyReconcilerOptions, 'nodeProblems'> {
  /**
   * The process's shared watches, which the reconciler reads from; the policies' resync is this controller's
   * periodic full reconciliation (§12.2.6).
   */
  readonly informers: NodePolicyInformers;
  /** Observes each finished reconciliation (tests, metrics). */
  readonly onReconciled?: (summary: NodePolicyReconcileSummary) => void;
  readonly metrics?: OperatorMetrics;
}

export type NodePolicyController = ControllerLoop;

/** What the policies depend on: referenced SriovNetworks and the NADs they render to (`<namespace>/<name>`). */
export interface Dependencies {
  readonly networks: ReadonlySet<string>;
  readonly nads: ReadonlySet<string>;
}

/** The SriovNetworks the policies reference and where their NADs are: events of anything else are not ours. */
export function dependenciesOf(
  policies: readonly NodePolicy[],
  networks: { get(key: string): (KubeObject & SriovNetwork) | undefined },
  options: Pick<NodePolicyReconcilerOptions, 'operatorNamespace' | 'resourcePrefix'>,
): Dependencies {
  const networkKeys = new Set<string>();
  const nadKeys = new Set<string>();
  for (const reference of referencedSriovNetworks(policies, options.operatorNamespace)) {
    const key = referenceKey(reference);
    networkKeys.add(key);
    const network = networks.get(key);
    if (network === undefined) continue;
    const rendered = renderSourceNad(network, options);
    if (rendered.ok) nadKeys.add(referenceKey(rendered.value));
  }
  return { networks: networkKeys, nads: nadKeys };
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

const labelsChanged = (previous: KubeObject, current: KubeObject): boolean =>
  JSON.stringify(previous.metadata.labels ?? {}) !== JSON.stringify(current.metadata.labels ?? {});

/**
 * Whether a SriovNetworkNodeState changed in what the plan reads of it (its interfaces, as an inventory):
 * the config daemon rewrites syncStatus, lastSyncError and the like far more often than the hardware changes.
 */
const inventoryChanged = (previous: KubeObject, current: KubeObject): boolean =>
  JSON.stringify(readNodeInventory(previous)) !== JSON.stringify(readNodeInventory(current));

/**
 * Runs the node-policy DRA reconciliation whenever something it plans from may have changed: a policy, a
 * referenced SriovNetwork (status-only Ready changes included), a NAD at a referenced source's place (old
 * and new object both checked, so a removed owner marker counts), a node's labels, a node's inventory, and a
 * periodic resync. Everything else — the driver's Pod shadows, a node state's sync status — is filtered out
 * before it costs a reconciliation. The reconciler reads the same caches, and the API server only for what
 * it is about to publish. Of the generated objects' caches only deletions wake it: a generated object
 * deleted by hand, or with its CRD, is written again at once, while every write of its own would come back
 * as an update (the periodic resync takes back a hand edit). A failed reconciliation is retried with backoff.
 */
export function startNodePolicyController(options: NodePolicyControllerOptions): NodePolicyController {
  const { logger, informers } = options;
  const queue = new WorkQueue();
  const nodeProblems = new NodeProblemReports();
  const wake = (): void => {
    queue.add(INVENTORY_KEY);
  };
  let dependencies: Dependencies = { networks: new Set(), nads: new Set() };
  const refresh = (): void => {
    dependencies = dependenciesOf(informers.policies.list() as unknown as NodePolicy[], informers.sriovNetworks, options);
  };
  const refreshAndWake = (): void => {
    refresh();
    wake();
  };

  informers.sriovNetworks.subscribe({
    // A referenced SriovNetwork's changes, status-only Ready transitions included, can move its NAD's place.
    onAdd: (network) => {
      if (dependencies.networks.has(keyOf(network))) refreshAndWake();
    },
    onUpdate: (_previous, network) => {
      if (dependencies.networks.has(keyOf(network))) refreshAndWake();
    },
    onDelete: (network) => {
      if (dependencies.networks.has(keyOf(network))) refreshAndWake();
    },
  });
  informers.policies.subscribe({
    onAdd: refreshAndWake,
    onUpdate: (previous, current) => {
      refresh();
      // The operator's own status writes come back as updates with an unchanged generation; a resync
      // replays each object as its own previous version, and that does wake the reconciler.
      if (previous !== current && previous.metadata.generation === current.metadata.generation) return;
      wake();
    },
    onDelete: refreshAndWake,
  });
  informers.nads.subscribe({
    onAdd: (nad) => {
      if (dependencies.nads.has(keyOf(nad))) wake();
    },
    onUpdate: (previous, nad) => {
      if (dependencies.nads.has(keyOf(nad)) && previous !== nad) wake();
    },
    onDelete: (nad) => {
      if (dependencies.nads.has(keyOf(nad))) wake();
    },
  });
  informers.nodes.subscribe({
    onAdd: wake,
    onUpdate: (previous, current) => {
      // Node status heartbeats are frequent and irrelevant; only labels select policies.
      if (labelsChanged(previous, current)) wake();
    },
    onDelete: wake,
  });
  // Its own deletions of stale objects wake it too, for one reconciliation that finds nothing to do.
  const generatedDeleted = {
    onDelete: (object: KubeObject) => {
      if (object.metadata.labels?.[GENERATED_BY_LABEL] === GENERATED_BY_VALUE) wake();
    },
  };
  informers.deviceAttributes.subscribe(generatedDeleted);
  informers.resourcePolicies.subscribe(generatedDeleted);
  informers.nodeStates.subscribe({
    onAdd: wake,
    onUpdate: (previous, current) => {
      if (inventoryChanged(previous, current)) wake();
    },
    onDelete: wake,
  });

  return startControllerLoop({
    name: 'node-policy',
    informers: [
      informers.sriovNetworks,
      informers.policies,
      informers.nads,
      informers.nodes,
      informers.nodeStates,
      informers.deviceAttributes,
      informers.resourcePolicies,
    ] as SharedInformer<KubeObject>[],
    queue,
    logger,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    onSynced: refreshAndWake,
    reconcile: async (_key, signal) => {
      const summary = await reconcileNodePolicies({ ...options, nodeProblems }, signal);
      // A SriovNetwork created after its policy: its NAD's place is known only now.
      refresh();
      options.onReconciled?.(summary);
      return summary.failures.length > 0 ? 'retry' : 'done';
    },
  });
}
