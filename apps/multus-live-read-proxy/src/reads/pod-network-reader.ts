import type { NetworkAttachmentDefinition, Pod } from '@sriov-dra/k8s';

/**
 * How ADD reads the Pod and the NetworkAttachmentDefinitions it selects (§10.2). Upstream Multus reads
 * both from shared informers, which can answer with a Pod annotation or a NAD set from before the
 * driver's writes; with `liveNetworkConfigOnAdd` the request reads them with live GETs instead. Both
 * readers answer with the same typed errors (PodNetworkReadError), so the ADD pipeline does not care
 * which one it was handed.
 */
export interface PodNetworkReader {
  readonly mode: 'live' | 'informer';
  readPod(namespace: string, name: string, signal: AbortSignal): Promise<Pod>;
  readNetworkAttachmentDefinition(namespace: string, name: string, signal: AbortSignal): Promise<NetworkAttachmentDefinition>;
}
