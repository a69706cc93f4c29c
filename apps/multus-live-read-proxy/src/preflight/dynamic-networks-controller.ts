import type { KubeClient, KubeObject, ResourceType } from '@sriov-dra/k8s';

const DAEMON_SET: ResourceType = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };

/** The upstream manifest's DaemonSet name and the labels it carries. */
const UPSTREAM_NAME = 'dynamic-networks-controller-ds';
const UPSTREAM_LABELS: readonly (readonly [string, string])[] = [
  ['app', 'dynamic-networks-controller'],
  ['name', 'dynamic-networks-controller'],
];

/** A DaemonSet deployed from the upstream multus-dynamic-networks-controller manifest (renamed or relabelled copies aside). */
export function isDynamicNetworksController(daemonSet: KubeObject): boolean {
  const labels = daemonSet.metadata.labels ?? {};
  return daemonSet.metadata.name === UPSTREAM_NAME || UPSTREAM_LABELS.some(([key, value]) => labels[key] === value);
}

/** namespace/name of every such DaemonSet in the cluster. */
export async function findDynamicNetworksControllers(client: KubeClient): Promise<string[]> {
  const list = await client.list(DAEMON_SET);
  return list.items.filter(isDynamicNetworksController).map((daemonSet) => `${daemonSet.metadata.namespace ?? ''}/${daemonSet.metadata.name}`);
}
