import { type KubeClient, readNetworkAttachmentDefinition, readPod } from '@sriov-dra/k8s';
import { nadReadFailure, podReadFailure } from './pod-network-read-error.ts';
import type { PodNetworkReader } from './pod-network-reader.ts';

/**
 * The request-local view of `liveNetworkConfigOnAdd` (§10.2): every read is exactly one GET, bounded by
 * the request's signal, with no resourceVersion (so the API server answers from its current state).
 * A failed GET fails the read: there is no cache to fall back on, stale or otherwise.
 */
export function liveReader(client: KubeClient): PodNetworkReader {
  return {
    mode: 'live',
    async readPod(namespace, name, signal) {
      try {
        return await readPod(client, namespace, name, signal);
      } catch (error) {
        throw podReadFailure('live', namespace, name, error, 'live GET');
      }
    },
    async readNetworkAttachmentDefinition(namespace, name, signal) {
      try {
        return await readNetworkAttachmentDefinition(client, namespace, name, signal);
      } catch (error) {
        throw nadReadFailure('live', namespace, name, error, 'live GET');
      }
    },
  };
}
