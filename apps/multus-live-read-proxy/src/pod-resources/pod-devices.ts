import type { Logger } from 'pino';
import type { podResourcesV1 } from '@sriov-dra/kubelet-api';
import { buildResourceMap, takeDeviceID } from './resource-map.ts';

/**
 * The devices the kubelet allocated to one Pod, as one ADD hands them to NADs that carry
 * k8s.v1.cni.cncf.io/resourceName. Multus builds this map once per ADD, on the first such NAD, and each
 * NAD takes its resource's next device; prepare() is that first fetch and take() that handing out.
 */
export interface PodDevices {
  /** Lists the kubelet's Pod resources unless done already; a failure is kept and thrown by take(). */
  prepare(signal: AbortSignal): Promise<void>;
  /** The resource's next device ID, '' when there is none left; throws the failure of the fetch. */
  take(resourceName: string): string;
}

/** For what runs without a Pod (STATUS, GC) or a Pod without a name: upstream looks nothing up. */
export const NO_POD_DEVICES: PodDevices = { prepare: () => Promise.resolve(), take: () => '' };

export function podDevices(
  pod: { readonly name: string; readonly namespace: string },
  list: (signal: AbortSignal) => Promise<podResourcesV1.PodResources[]>,
  logger: Logger,
): PodDevices {
  if (pod.name === '' || pod.namespace === '') return NO_POD_DEVICES;
  let fetched: { readonly ok: true; readonly map: ReturnType<typeof buildResourceMap>['map'] } | { readonly ok: false; readonly error: unknown } | undefined;
  return {
    async prepare(signal) {
      if (fetched !== undefined) return;
      try {
        const { map, skippedCdiNames } = buildResourceMap(await list(signal), pod);
        for (const name of skippedCdiNames)
          logger.warn(
            { cdiDevice: name, podNamespace: pod.namespace, podName: pod.name },
            'CDI device name is not vendor/class=device; left out of the resource map',
          );
        fetched = { ok: true, map };
      } catch (error) {
        fetched = { ok: false, error };
      }
    },
    take(resourceName) {
      if (fetched === undefined) throw new Error('PodDevices.take before prepare');
      if (!fetched.ok) throw fetched.error;
      return takeDeviceID(fetched.map, resourceName);
    },
  };
}
