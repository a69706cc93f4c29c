import type { podResourcesV1 } from '@sriov-dra/kubelet-api';

/** One resource's devices for a Pod, in the kubelet's order, and how many ADD has handed out. */
interface ResourceEntry {
  readonly deviceIDs: string[];
  index: number;
}

/**
 * Multus's resourceMap for one Pod (kubeletclient.GetPodResourceMap): device-plugin devices keyed by
 * resource name, DRA claims keyed by claim name (the device of each CDI name `vendor/class=device`),
 * across all the Pod's containers in the kubelet's order. `skippedCdiNames` are CDI names without
 * exactly one '=', which upstream logs and leaves out.
 */
export function buildResourceMap(
  pods: readonly podResourcesV1.PodResources[],
  pod: { readonly name: string; readonly namespace: string },
): { readonly map: Map<string, ResourceEntry>; readonly skippedCdiNames: readonly string[] } {
  const map = new Map<string, ResourceEntry>();
  const skippedCdiNames: string[] = [];
  const append = (key: string, ids: readonly string[]): void => {
    const entry = map.get(key);
    if (entry === undefined) map.set(key, { deviceIDs: [...ids], index: 0 });
    else entry.deviceIDs.push(...ids);
  };
  for (const resources of pods) {
    if (resources.name !== pod.name || resources.namespace !== pod.namespace) continue;
    for (const container of resources.containers) {
      for (const devices of container.devices) append(devices.resourceName, devices.deviceIds);
      for (const claim of container.dynamicResources) {
        const ids: string[] = [];
        for (const resource of claim.claimResources) {
          for (const cdi of resource.cdiDevices) {
            const parts = cdi.name.split('=');
            if (parts.length === 2) ids.push(parts[1] ?? '');
            else skippedCdiNames.push(cdi.name);
          }
        }
        append(claim.claimName, ids);
      }
    }
  }
  return { map, skippedCdiNames };
}

/**
 * The next device of a resource for this ADD, as getKubernetesDelegate takes it: each NAD of the same
 * resource gets the next ID; an unknown resource or one whose devices are all handed out gets ''.
 */
export function takeDeviceID(map: Map<string, ResourceEntry>, resourceName: string): string {
  const entry = map.get(resourceName);
  if (entry === undefined || entry.index >= entry.deviceIDs.length) return '';
  const id = entry.deviceIDs[entry.index] ?? '';
  entry.index += 1;
  return id;
}
