import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { isUpstreamMultus } from './existing-multus.ts';

/**
 * Where one node stands in a move from another Multus to this daemon, as the API server tells it: whether
 * a Pod of an upstream Multus DaemonSet is on it (or headed there), and whether it is cordoned and drained.
 */
export interface NodeMigrationFacts {
  readonly node: string;
  readonly cordoned: boolean;
  /** namespace/name of each Pod of an upstream Multus DaemonSet bound or headed to this node, terminating ones included. */
  readonly upstreamPods: readonly string[];
  /** namespace/name of each upstream Multus DaemonSet whose Pod template's node selection takes this node. */
  readonly admittedBy: readonly string[];
  /** namespace/name of each Pod `kubectl drain --ignore-daemonsets` would evict: its network is a Multus attachment. */
  readonly workloads: readonly string[];
}

type PodObject = KubeObject & {
  spec?: {
    nodeName?: string;
    hostNetwork?: boolean;
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: readonly NodeSelectorTerm[] } } };
  };
  status?: { phase?: string };
};
interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}
interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}
type PodTemplateSpec = NonNullable<PodObject['spec']> & { nodeSelector?: Readonly<Record<string, string>> };

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const qualifiedName = (object: KubeObject): string => `${object.metadata.namespace ?? ''}/${object.metadata.name}`;

/** A DaemonSet's Pod not yet bound names its node by the affinity the DaemonSet controller gives it. */
function headedTo(pod: PodObject, node: string): boolean {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.some((term) =>
    (term.matchFields ?? []).some((field) => field.key === 'metadata.name' && field.operator === 'In' && (field.values ?? []).includes(node)),
  );
}

function satisfies(requirement: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}

/**
 * Whether a DaemonSet's Pod template selects the node by its nodeSelector and required node affinity, as
 * the DaemonSet controller decides where its Pods go (taints aside: a Multus DaemonSet tolerates them all).
 */
function selectsNode(template: PodTemplateSpec | undefined, node: { readonly name: string; readonly labels: Readonly<Record<string, string>> }): boolean {
  if (!Object.entries(template?.nodeSelector ?? {}).every(([key, value]) => node.labels[key] === value)) return false;
  const terms = template?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms === undefined || terms.length === 0) return true;
  return terms.some(
    (term) =>
      (term.matchExpressions ?? []).every((requirement) => satisfies(requirement, node.labels[requirement.key])) &&
      (term.matchFields ?? []).every((requirement) => satisfies(requirement, requirement.key === 'metadata.name' ? node.name : undefined)),
  );
}

/** What a drain leaves: DaemonSet Pods, mirror Pods, Pods on the host's network, and Pods that have ended. */
function isWorkload(pod: PodObject): boolean {
  if (pod.spec?.hostNetwork === true) return false;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return false;
  return !(pod.metadata.ownerReferences ?? []).some((owner) => owner['kind'] === 'DaemonSet');
}

/**
 * Reads the node, its Pods, and the unbound Pods of every upstream Multus DaemonSet among `daemonSets`, and
 * which of those DaemonSets select the node (a Pod of theirs comes back after any deletion).
 */
export async function readNodeMigration(client: KubeClient, node: string, daemonSets: readonly KubeObject[]): Promise<NodeMigrationFacts> {
  const found = await client.get<KubeObject & { spec?: { unschedulable?: boolean } }>(resourceTypes.node, { name: node });
  const upstream = daemonSets.filter(isUpstreamMultus);
  const upstreamUids = new Set(upstream.map((daemonSet) => daemonSet.metadata.uid));
  const ownedByUpstream = (pod: PodObject): boolean => (pod.metadata.ownerReferences ?? []).some((owner) => upstreamUids.has(String(owner['uid'])));
  const bound = (await client.list<PodObject>(resourceTypes.pod, { fieldSelector: `spec.nodeName=${node}` })).items;
  const unbound: PodObject[] = [];
  for (const namespace of new Set(upstream.map((daemonSet) => daemonSet.metadata.namespace ?? ''))) {
    unbound.push(
      ...(await client.list<PodObject>(resourceTypes.pod, { namespace, fieldSelector: 'spec.nodeName=' })).items.filter((pod) => headedTo(pod, node)),
    );
  }
  return {
    node,
    cordoned: found.spec?.unschedulable === true,
    upstreamPods: [...bound, ...unbound].filter(ownedByUpstream).map(qualifiedName).sort(),
    admittedBy: upstream
      .filter((daemonSet) =>
        selectsNode((daemonSet as KubeObject & { spec?: { template?: { spec?: PodTemplateSpec } } }).spec?.template?.spec, {
          name: node,
          labels: found.metadata.labels ?? {},
        }),
      )
      .map(qualifiedName)
      .sort(),
    workloads: bound.filter(isWorkload).map(qualifiedName).sort(),
  };
}
