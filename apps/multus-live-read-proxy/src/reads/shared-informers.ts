import { Informer, type InformerOptions, type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

/**
 * The daemon's shared caches, created once at start as upstream Multus creates them: Pods of this node
 * only (field selector spec.nodeName=<node>), NADs of every namespace. Requests read them; none alters
 * or replaces them (§10.2).
 */
export interface SharedPodNetworkInformers {
  readonly client: KubeClient;
  readonly pods: Informer<KubeObject>;
  readonly networkAttachmentDefinitions: Informer<KubeObject>;
}

export function createSharedPodNetworkInformers(
  client: KubeClient,
  nodeName: string,
  options: Pick<InformerOptions, 'onError' | 'watchIdleMs' | 'backoff'> = {},
): SharedPodNetworkInformers {
  return {
    client,
    pods: new Informer(client, resourceTypes.pod, {}, { ...options, fieldSelector: `spec.nodeName=${nodeName}` }),
    networkAttachmentDefinitions: new Informer(client, resourceTypes.networkAttachmentDefinition, {}, options),
  };
}

/** Runs both informers until the signal aborts. */
export async function runSharedPodNetworkInformers(shared: SharedPodNetworkInformers, signal: AbortSignal): Promise<void> {
  await Promise.all([shared.pods.run(signal), shared.networkAttachmentDefinitions.run(signal)]);
}
