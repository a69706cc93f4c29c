import { type KubeObject, WorkQueue, objectKey } from '@sriov-dra/k8s';
import { type ControllerLoop, startControllerLoop } from '../controller/controller-loop.ts';
import type { OperatorInformers, SharedInformer } from '../controller/shared-informers.ts';
import type { OperatorMetrics } from '../metrics.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';
import { type SriovNetworkReconcilerOptions, reconcileSriovNetwork } from './sriov-network-reconciler.ts';

type NetworkObject = KubeObject & SriovNetwork;

export interface SriovNetworkControllerOptions extends SriovNetworkReconcilerOptions {
  /** The process's shared watches, with the Namespace watch standalone mode opens; their resync is this controller's missed-event recovery. */
  readonly informers: Pick<OperatorInformers, 'sriovNetworks' | 'nads'> & { readonly namespaces: SharedInformer<KubeObject> };
  readonly metrics?: OperatorMetrics;
}

export type SriovNetworkController = ControllerLoop;

/** Which SriovNetworks a NAD event concerns: one of its name in its namespace or in the operator namespace (upstream's mapping). */
export function networksForNad(nad: KubeObject, networks: { get(key: string): unknown }, operatorNamespace: string): string[] {
  const candidates = [`${nad.metadata.namespace ?? ''}/${nad.metadata.name}`, `${operatorNamespace}/${nad.metadata.name}`];
  return [...new Set(candidates)].filter((key) => networks.get(key) !== undefined);
}

/** Which SriovNetworks wait for a namespace that now exists: those whose target it is. */
export function networksForNamespace(namespace: string, networks: readonly NetworkObject[]): string[] {
  return networks
    .filter((network) => ((network.spec.networkNamespace ?? '') === '' ? network.metadata.namespace : network.spec.networkNamespace) === namespace)
    .map(objectKey);
}

/**
 * Runs the SriovNetwork controller: informers on SriovNetworks, NADs and Namespaces only wake it (every
 * decision re-reads the live objects), one rate-limited queue de-duplicates the keys, and a failed
 * reconciliation is retried with per-key backoff. A NAD event wakes at most the two SriovNetworks that may
 * own that name, so NAD churn elsewhere (the driver's shadows) costs a map lookup, never a reconciliation.
 */
export function startSriovNetworkController(options: SriovNetworkControllerOptions): SriovNetworkController {
  const { logger, operatorNamespace, informers } = options;
  const queue = new WorkQueue();
  const enqueue = (key: string): void => {
    queue.add(key);
  };
  informers.sriovNetworks.subscribe({
    onAdd: (network) => {
      enqueue(objectKey(network));
    },
    onUpdate: (_previous, network) => {
      enqueue(objectKey(network));
    },
    onDelete: (network) => {
      enqueue(objectKey(network));
    },
  });
  const onNad = (nad: KubeObject): void => {
    for (const key of networksForNad(nad, informers.sriovNetworks, operatorNamespace)) enqueue(key);
  };
  informers.nads.subscribe({
    onAdd: onNad,
    onUpdate: (_previous, nad) => {
      onNad(nad);
    },
    onDelete: onNad,
  });
  informers.namespaces.subscribe({
    onAdd: (namespace) => {
      networksForNamespace(namespace.metadata.name, informers.sriovNetworks.list()).forEach(enqueue);
    },
  });
  return startControllerLoop({
    name: 'SriovNetwork',
    informers: [informers.sriovNetworks, informers.nads, informers.namespaces] as SharedInformer<KubeObject>[],
    queue,
    logger,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    reconcile: async (key, signal) => {
      const [namespace = '', name = ''] = key.split('/');
      await reconcileSriovNetwork({ namespace, name }, options, signal);
      return 'done';
    },
  });
}
