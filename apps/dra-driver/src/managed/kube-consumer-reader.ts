import { type KubeClient, type ResourceType, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { ConsumerReader } from './resolve-pod-for-claim.ts';

async function getIfExists(
  client: KubeClient,
  type: ResourceType,
  at: { namespace?: string; name: string },
  signal: AbortSignal | undefined,
): Promise<unknown> {
  try {
    return await client.get(type, at, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** The ConsumerReader of a running driver: plain GETs against the API server, decoded by the resolver. */
export function kubeConsumerReader(client: KubeClient): ConsumerReader {
  return {
    pod: (namespace, name, signal) => getIfExists(client, resourceTypes.pod, { namespace, name }, signal),
    node: (name, signal) => getIfExists(client, resourceTypes.node, { name }, signal),
    claim: (namespace, name, signal) => getIfExists(client, resourceTypes.resourceClaim, { namespace, name }, signal),
  };
}
