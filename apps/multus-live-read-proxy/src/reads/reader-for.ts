import { informerReader, type InformerPodWait, UPSTREAM_POD_WAIT } from './informer-reader.ts';
import { liveReader } from './live-reader.ts';
import type { PodNetworkReader } from './pod-network-reader.ts';
import type { SharedPodNetworkInformers } from './shared-informers.ts';

/**
 * The reader for one ADD (§10.2, WithLiveReads): with `liveNetworkConfigOnAdd` a view that reads live
 * through the shared client and ignores the informers; otherwise upstream's informer reads. Either way
 * the shared informers are only read — never stopped, replaced or cleared — so concurrent requests in
 * the other mode keep their view.
 */
export function readerFor(liveNetworkConfigOnAdd: boolean, shared: SharedPodNetworkInformers, podWait: InformerPodWait = UPSTREAM_POD_WAIT): PodNetworkReader {
  return liveNetworkConfigOnAdd ? liveReader(shared.client) : informerReader(shared, podWait);
}
