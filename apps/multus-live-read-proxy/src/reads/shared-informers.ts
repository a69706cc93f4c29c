import { Informer, type InformerOptions, type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

/** When the NAD informer starts: with the daemon, as upstream, or at the first request that reads it. */
export type NadWatchStart = 'with-daemon' | 'on-first-read';

/**
 * The daemon's shared caches, created once at start as upstream Multus creates them: Pods of this node
 * only (field selector spec.nodeName=<node>), NADs of every namespace. Requests read them; none alters
 * or replaces them (§10.2).
 *
 * The NAD cache is the one whose cost is the cluster's rather than the node's: every NAD of every
 * namespace held in memory, every NAD write streamed to every node. So it runs only in a daemon that
 * reads it — from the start when the daemon's own configuration leaves ADDs on the informers, as
 * upstream, otherwise from the first request that resolves to informer reads (a shim configuration can
 * still ask for them). A daemon whose ADDs all read live never watches NADs.
 */
export interface SharedPodNetworkInformers {
  readonly client: KubeClient;
  readonly pods: Informer<KubeObject>;
  readonly networkAttachmentDefinitions: Informer<KubeObject>;
  /** Starts the NAD informer if the shared informers run and it does not yet. */
  readonly watchNetworkAttachmentDefinitions: () => void;
  /** Whether the NAD informer was started: until then readiness does not wait for it. */
  readonly watchingNetworkAttachmentDefinitions: () => boolean;
  /** Runs the Pod informer, and the NAD informer from `nads` on, until the signal aborts. */
  readonly run: (signal: AbortSignal, nads: NadWatchStart) => Promise<void>;
}

export function createSharedPodNetworkInformers(
  client: KubeClient,
  nodeName: string,
  options: Pick<InformerOptions, 'onError' | 'watchIdleMs' | 'backoff'> = {},
): SharedPodNetworkInformers {
  const pods = new Informer(client, resourceTypes.pod, {}, { ...options, fieldSelector: `spec.nodeName=${nodeName}` });
  const networkAttachmentDefinitions = new Informer(client, resourceTypes.networkAttachmentDefinition, {}, options);
  let running: AbortSignal | undefined;
  let nads: Promise<void> | undefined;
  const watchNetworkAttachmentDefinitions = (): void => {
    if (nads !== undefined || running === undefined || running.aborted) return;
    nads = networkAttachmentDefinitions.run(running);
  };
  return {
    client,
    pods,
    networkAttachmentDefinitions,
    watchNetworkAttachmentDefinitions,
    watchingNetworkAttachmentDefinitions: () => nads !== undefined,
    run: async (signal, start) => {
      running = signal;
      if (start === 'with-daemon') watchNetworkAttachmentDefinitions();
      await pods.run(signal);
      await nads;
    },
  };
}

/** Runs both informers until the signal aborts; the NAD informer from the start unless `nads` says otherwise. */
export async function runSharedPodNetworkInformers(shared: SharedPodNetworkInformers, signal: AbortSignal, nads: NadWatchStart = 'with-daemon'): Promise<void> {
  await shared.run(signal, nads);
}
