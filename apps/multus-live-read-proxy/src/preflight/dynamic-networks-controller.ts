import type { KubeClient, KubeObject, ResourceType } from '@sriov-dra/k8s';

export const DAEMON_SET: ResourceType = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };

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

/** Every DaemonSet in the cluster: preflight looks among them for other network daemons. */
export async function listDaemonSets(client: KubeClient): Promise<KubeObject[]> {
  return (await client.list(DAEMON_SET)).items;
}

/** namespace/name of each DaemonSet `select` picks. */
export function daemonSetNames(daemonSets: readonly KubeObject[], select: (daemonSet: KubeObject) => boolean): string[] {
  return daemonSets.filter(select).map((daemonSet) => `${daemonSet.metadata.namespace ?? ''}/${daemonSet.metadata.name}`);
}
