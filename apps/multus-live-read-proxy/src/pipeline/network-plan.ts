import { type ObjectRef, type Result, annotations, fail, ok } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';

/** Pod annotation that replaces the cluster network for one Pod (Multus's defaultNetAnnot). */
export const DEFAULT_NETWORK_ANNOTATION = 'v1.multus-cni.io/default-network';

/** The daemon settings that decide which networks a Pod gets. */
export interface NetworkPlanSettings {
  readonly clusterNetwork: string;
  readonly defaultNetworks: readonly string[];
  readonly multusNamespace: string;
  readonly systemNamespaces: readonly string[];
  readonly namespaceIsolation: boolean;
  /** Namespaces any Pod may reference under namespace isolation (globalNamespaces; "default" unless set). */
  readonly nonIsolatedNamespaces: readonly string[];
}

/**
 * Where a network's configuration comes from. A cluster or default network named without "/" is a NAD in
 * the Multus namespace, else the CNI file of that name in confDir; with "/" it is a file or directory
 * path. A selection is always a NAD.
 */
export type NetworkSource =
  | { readonly kind: 'nad'; readonly namespace: string; readonly name: string; readonly confNameFallback: boolean }
  | { readonly kind: 'path'; readonly path: string };

export interface PlannedNetwork {
  /** master: delegate 0; default: a configured defaultNetworks entry; selection: the Pod's networks annotation. */
  readonly role: 'master' | 'default' | 'selection';
  readonly source: NetworkSource;
  readonly selection?: NetworkSelection;
}

interface PlanPod {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string; readonly annotations?: Readonly<Record<string, string>> };
}

function configured(name: string, settings: NetworkPlanSettings): NetworkSource {
  return name.includes('/') ? { kind: 'path', path: name } : { kind: 'nad', namespace: settings.multusNamespace, name, confNameFallback: true };
}

/**
 * The ordered networks of one ADD, as Multus v4.2.3 orders its delegates: the cluster network (or the
 * Pod's default-network override) first, the configured defaultNetworks unless the Pod is in a system
 * namespace, then the networks annotation in its own order. Namespace isolation applies to the
 * annotation's references. Nothing is read here; the caller fetches each source.
 */
export function planNetworks(pod: PlanPod, settings: NetworkPlanSettings): Result<PlannedNetwork[]> {
  const object: ObjectRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  if (settings.clusterNetwork === '') {
    return fail('InvalidComponentSetting', 'the daemon configuration names no clusterNetwork', {
      remedy: 'set clusterNetwork in daemon-config.json to the primary network (a NAD name, a CNI network name or a file path)',
    });
  }
  let master: PlannedNetwork = { role: 'master', source: configured(settings.clusterNetwork, settings) };
  const override = pod.metadata.annotations?.[DEFAULT_NETWORK_ANNOTATION];
  if (override !== undefined) {
    // Multus parses the override like the networks annotation, defaulting to the Multus namespace.
    const parsed = parseNetworkSelections(override, settings.multusNamespace, { ...object, field: `annotation ${DEFAULT_NETWORK_ANNOTATION}` });
    if (!parsed.ok) return parsed;
    const [only, ...more] = parsed.value;
    if (only === undefined || more.length > 0) {
      return fail('MalformedNetworkSelections', `annotation ${DEFAULT_NETWORK_ANNOTATION} must name exactly one network, not ${String(parsed.value.length)}`, {
        object,
      });
    }
    master = { role: 'master', source: { kind: 'nad', namespace: only.namespace, name: only.name, confNameFallback: false }, selection: only };
  }
  const defaults: PlannedNetwork[] = settings.systemNamespaces.includes(pod.metadata.namespace)
    ? []
    : settings.defaultNetworks.map((name) => ({ role: 'default', source: configured(name, settings) }));

  const selections = parseNetworkSelections(pod.metadata.annotations?.[annotations.networks], pod.metadata.namespace, object);
  if (!selections.ok) return selections;
  const selected: PlannedNetwork[] = [];
  for (const selection of selections.value) {
    if (settings.namespaceIsolation && selection.namespace !== pod.metadata.namespace && !settings.nonIsolatedNamespaces.includes(selection.namespace)) {
      return fail(
        'NamespaceIsolationViolation',
        `namespace isolation is on and the Pod refers to network ${selection.namespace}/${selection.name} in another namespace`,
        {
          object,
          remedy: `reference NADs of namespace ${pod.metadata.namespace} or of ${settings.nonIsolatedNamespaces.join(', ') || 'no other namespace'} (globalNamespaces)`,
        },
      );
    }
    selected.push({ role: 'selection', source: { kind: 'nad', namespace: selection.namespace, name: selection.name, confNameFallback: false }, selection });
  }
  return ok([master, ...defaults, ...selected]);
}
