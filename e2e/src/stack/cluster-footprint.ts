// What the stack adds to a cluster it does not own, and how it takes it away again: a cluster named by
// KUBECONFIG must be left as it was found. Before anything is created, the stack refuses a cluster where
// its names are taken (it would otherwise act on, then delete, someone else's objects) or where DRA is
// not served.
import { type KubeClient, type KubeObject, type ResourceType, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';

/** The cluster-scoped kinds the stack creates objects of, and the node Leases. */
const FOOTPRINT_KINDS = {
  Namespace: resourceTypes.namespace,
  Node: resourceTypes.node,
  CustomResourceDefinition: resourceTypes.customResourceDefinition,
  ClusterRole: resourceTypes.clusterRole,
  ClusterRoleBinding: resourceTypes.clusterRoleBinding,
  ValidatingWebhookConfiguration: resourceTypes.validatingWebhookConfiguration,
  ValidatingAdmissionPolicy: resourceTypes.validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: resourceTypes.validatingAdmissionPolicyBinding,
  DeviceClass: resourceTypes.deviceClass,
  ResourceSlice: resourceTypes.resourceSlice,
} as const satisfies Record<string, ResourceType>;

type FootprintKind = keyof typeof FOOTPRINT_KINDS;

/** Names of the objects of each kind, sorted; node Leases under `Lease`. */
export type Footprint = Readonly<Record<FootprintKind | 'Lease', readonly string[]>>;

async function names(client: KubeClient, type: ResourceType, namespace?: string): Promise<string[]> {
  const list = await client.list(type, namespace === undefined ? {} : { namespace });
  return list.items.map((object) => object.metadata.name).sort();
}

export async function footprint(client: KubeClient): Promise<Footprint> {
  const entries = await Promise.all(Object.entries(FOOTPRINT_KINDS).map(async ([kind, type]) => [kind, await names(client, type)] as const));
  return { ...(Object.fromEntries(entries) as Record<FootprintKind, string[]>), Lease: await names(client, resourceTypes.lease, 'kube-node-lease') };
}

export interface StackNames {
  readonly nodeName: string;
  /** Namespaces the stack creates and deletes. */
  readonly namespaces: readonly string[];
}

/** Refuses a cluster the stack would collide with, saying what to do; resolves when it may go ahead. */
export async function preflight(client: KubeClient, stackNames: StackNames): Promise<void> {
  try {
    await client.request({ method: 'GET', path: '/apis/resource.k8s.io/v1' });
  } catch (error) {
    if (!isApiError(error, 'NotFound')) throw error;
    throw new Error('the target cluster does not serve resource.k8s.io/v1 (Dynamic Resource Allocation, Kubernetes 1.34 or later): use a cluster that does');
  }
  const taken: string[] = [];
  const exists = async (type: ResourceType, name: string): Promise<boolean> =>
    client.get(type, { name }).then(
      () => true,
      (error: unknown) => {
        if (isApiError(error, 'NotFound')) return false;
        throw error;
      },
    );
  if (await exists(resourceTypes.node, stackNames.nodeName)) taken.push(`Node ${stackNames.nodeName}`);
  for (const namespace of stackNames.namespaces) if (await exists(resourceTypes.namespace, namespace)) taken.push(`Namespace ${namespace}`);
  if (taken.length > 0) {
    throw new Error(
      `the target cluster already has ${taken.join(', ')}: the stack creates these and deletes them afterwards. Delete them (a previous run's) or use another cluster`,
    );
  }
}

/**
 * Deletes what the stack added since `before`: its node with the node's Lease, ResourceSlices and Pods,
 * then its namespaces (and with them every namespaced object it made), then `owned` cluster-scoped
 * objects (the chart's and the agents') and the CRDs and DeviceClasses that did not exist before. Waits
 * until the namespaces are gone before touching CRDs: the namespace controller empties a namespace
 * through API discovery, and CRDs vanishing meanwhile make it back off for a minute.
 */
export async function removeAdded(
  client: KubeClient,
  before: Footprint,
  stackNames: StackNames,
  owned: readonly { readonly kind: string; readonly name: string }[],
): Promise<void> {
  const slices = (await client.list<KubeObject & { spec: { nodeName?: string } }>(resourceTypes.resourceSlice)).items.filter(
    (slice) => slice.spec.nodeName === stackNames.nodeName,
  );
  await deleteAll(client, [
    { type: resourceTypes.node, name: stackNames.nodeName },
    { type: resourceTypes.lease, name: stackNames.nodeName, namespace: 'kube-node-lease' },
    ...slices.map((slice) => ({ type: resourceTypes.resourceSlice, name: slice.metadata.name })),
  ]);
  // The node's Pods (the chart's workloads, whose processes have stopped, and any other DaemonSet's) are
  // gone with it: their deletion is completed as their kubelet would. Left to their grace periods, the
  // namespace controller would wait out the longest before it looked again.
  const onNode = await client.list(resourceTypes.pod, { fieldSelector: `spec.nodeName=${stackNames.nodeName}` });
  await deleteAll(
    client,
    onNode.items.map((pod) => ({ type: resourceTypes.pod, name: pod.metadata.name, namespace: pod.metadata.namespace ?? '' })),
    { gracePeriodSeconds: 0 },
  );
  await deleteNamespaces(client, stackNames.namespaces);
  const now = await footprint(client);
  const added = (kind: FootprintKind) => now[kind].filter((name) => !before[kind].includes(name));
  const crds = added('CustomResourceDefinition');
  await deleteAll(client, [
    ...owned.flatMap(({ kind, name }) => (kind in FOOTPRINT_KINDS ? [{ type: FOOTPRINT_KINDS[kind as FootprintKind], name }] : [])),
    ...crds.map((name) => ({ type: resourceTypes.customResourceDefinition, name })),
    ...added('DeviceClass').map((name) => ({ type: resourceTypes.deviceClass, name })),
  ]);
  // A CRD goes once the API server has removed its (by now no) objects.
  await waitFor(
    `the stack's CRDs (${crds.join(', ')}) to be deleted`,
    async () => {
      const left = new Set(await names(client, resourceTypes.customResourceDefinition));
      return crds.every((crd) => !left.has(crd));
    },
    { timeoutMs: 60_000 },
  );
}

interface NamespaceStatus {
  readonly conditions?: readonly { readonly type: string; readonly status: string; readonly message?: string }[];
}

/**
 * Deletes namespaces and waits until the namespace controller has emptied and removed them. What holds
 * one up (objects whose finalizers nobody removes) is named in the error when they do not go.
 */
export async function deleteNamespaces(client: KubeClient, namespaces: readonly string[]): Promise<void> {
  await deleteAll(
    client,
    namespaces.map((name) => ({ type: resourceTypes.namespace, name })),
  );
  let holding: string[] = [];
  await waitFor(
    `namespaces ${namespaces.join(', ')} to be deleted`,
    async () => {
      const left = (await client.list<KubeObject & { status?: NamespaceStatus }>(resourceTypes.namespace)).items.filter((namespace) =>
        namespaces.includes(namespace.metadata.name),
      );
      holding = left.map(
        (namespace) =>
          `${namespace.metadata.name}: ${(namespace.status?.conditions ?? [])
            .filter((condition) => condition.status === 'True')
            .map((condition) => condition.message ?? condition.type)
            .join('; ')}`,
      );
      return left.length === 0;
    },
    { timeoutMs: 120_000, describe: () => holding.join('\n') },
  );
}

async function deleteAll(
  client: KubeClient,
  objects: readonly { type: ResourceType; name: string; namespace?: string }[],
  options: { readonly gracePeriodSeconds?: number } = {},
): Promise<void> {
  for (const { type, name, namespace } of objects) {
    await client.delete(type, namespace === undefined ? { name } : { namespace, name }, options).catch((error: unknown) => {
      if (!isApiError(error, 'NotFound')) throw error;
    });
  }
}
