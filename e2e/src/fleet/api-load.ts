// What the API server's audit log says about the fleet's load: requests per second by component (the API
// user a request authenticated as), by verb and by node, over a window of time, and every LIST a product
// component issued in it. A node agent's node comes from its Pod-bound token (the API server records the
// node of the Pod a token is bound to), the simulated kubelet's from its own ServiceAccount's name.

/** The fields of an audit event (audit.k8s.io/v1, level Metadata) the fleet figures read. */
export interface FleetAuditEvent {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly requestReceivedTimestamp: string;
  readonly requestURI: string;
  readonly user: { readonly username: string; readonly extra?: Readonly<Record<string, readonly string[]>> };
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string; readonly namespace?: string; readonly name?: string };
}

export const PRODUCT_COMPONENTS = ['driver', 'multusDaemon', 'operator'] as const;
export const NODE_COMPONENTS = ['driver', 'multusDaemon', 'kubelet'] as const;

export interface Identities {
  /** The release namespace, where the components' ServiceAccounts are. */
  readonly releaseNamespace: string;
  /** Username prefix of each node's simulated kubelet, followed by the node's name. */
  readonly kubeletPrefix: string;
  /** Each node's UID by name: a node agent's selectors may name its node by either. */
  readonly nodeUids: ReadonlyMap<string, string>;
}

export interface Requester {
  readonly component: string;
  readonly node: string | undefined;
}

const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

/** Which component made a request and, for a node agent, on which node. */
export function requesterOf(event: FleetAuditEvent, identities: Identities): Requester {
  const user = event.user.username;
  const account = (name: string): string => `system:serviceaccount:${identities.releaseNamespace}:${name}`;
  const node = event.user.extra?.[NODE_NAME_EXTRA]?.[0];
  if (user === account('dra-driver-sriov')) return { component: 'driver', node };
  if (user === account('multus-live-read-proxy')) return { component: 'multusDaemon', node };
  if (user === account('node-policy-operator')) return { component: 'operator', node: undefined };
  if (user.startsWith(identities.kubeletPrefix)) return { component: 'kubelet', node: user.slice(identities.kubeletPrefix.length) };
  if (user === 'system:kube-scheduler') return { component: 'scheduler', node: undefined };
  if (user === 'system:kube-controller-manager' || user.startsWith('system:serviceaccount:kube-system:'))
    return { component: 'controllerManager', node: undefined };
  if (user === 'system:apiserver') return { component: 'apiserver', node: undefined };
  // The harness's own creates, deletes and polling, as the admin.
  return { component: 'harness', node: undefined };
}

/** One event per request (its first stage: when it was received), in file order. */
export function requestsOf(events: readonly FleetAuditEvent[]): FleetAuditEvent[] {
  const seen = new Set<string>();
  const requests: FleetAuditEvent[] = [];
  for (const event of events) {
    if (seen.has(event.auditID)) continue;
    seen.add(event.auditID);
    requests.push(event);
  }
  return requests;
}

export interface Window {
  readonly from: Date;
  readonly to: Date;
}

export function inWindow(events: readonly FleetAuditEvent[], window: Window): FleetAuditEvent[] {
  const from = window.from.getTime();
  const to = window.to.getTime();
  return events.filter((event) => {
    const at = Date.parse(event.requestReceivedTimestamp);
    return at >= from && at < to;
  });
}

/**
 * `node`: the LIST's selector names the requester's own node (by name or UID), so what it reads does not
 * grow with the fleet; `fleet`: anything else, every object of the kind in a namespace or the cluster.
 */
export type ListScope = 'node' | 'fleet';

export interface ListRequest {
  readonly component: string;
  readonly node: string | undefined;
  readonly resource: string;
  /** Undefined for a LIST across namespaces. */
  readonly namespace: string | undefined;
  readonly scope: ListScope;
  /** One of the requests, as the API server received it. */
  readonly requestURI: string;
  readonly count: number;
}

/** Whether a LIST by an agent of `node` selects only that node's objects. */
export function listScope(requestURI: string, node: string | undefined, identities: Identities): ListScope {
  if (node === undefined) return 'fleet';
  const query = new URL(requestURI, 'https://api.invalid').searchParams;
  const terms = [query.get('fieldSelector') ?? '', query.get('labelSelector') ?? ''].flatMap((selector) => selector.split(','));
  const values = terms.map((term) => term.split(/==?/)[1]);
  const uid = identities.nodeUids.get(node);
  return values.some((value) => value === node || (uid !== undefined && value === uid)) ? 'node' : 'fleet';
}

export interface ApiLoad {
  readonly seconds: number;
  /** Requests per second, watches included (a watch counts once, when opened). */
  readonly total: number;
  /** Requests per second by component, then by verb. */
  readonly byComponent: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Requests per second of each node's agents, by node then component. */
  readonly byNode: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** How many requests each node's agents made, by node then `<component> <verb> <resource>[/<subresource>]`. */
  readonly nodeRequests: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** The LISTs of the product's components in the window. */
  readonly lists: readonly ListRequest[];
  /** The watches the product's components opened in the window, counted like the LISTs. */
  readonly watches: readonly ListRequest[];
}

function add(table: Record<string, Record<string, number>>, row: string, column: string, amount: number): void {
  const entries = (table[row] ??= {});
  entries[column] = (entries[column] ?? 0) + amount;
}

/** The load of `requests` (one event each) over `window`; `nodes` are listed even when silent. */
export function apiLoad(requests: readonly FleetAuditEvent[], window: Window, identities: Identities, nodes: readonly string[]): ApiLoad {
  const seconds = (window.to.getTime() - window.from.getTime()) / 1000;
  const rate = 1 / seconds;
  const within = inWindow(requests, window);
  const byComponent: Record<string, Record<string, number>> = {};
  const byNode: Record<string, Record<string, number>> = Object.fromEntries(
    nodes.map((node) => [node, Object.fromEntries(NODE_COMPONENTS.map((component) => [component, 0]))]),
  );
  const nodeRequests: Record<string, Record<string, number>> = Object.fromEntries(nodes.map((node) => [node, {}]));
  const reads = { list: new Map<string, ListRequest>(), watch: new Map<string, ListRequest>() };
  for (const event of within) {
    const { component, node } = requesterOf(event, identities);
    add(byComponent, component, event.verb, rate);
    if (node !== undefined && (NODE_COMPONENTS as readonly string[]).includes(component)) {
      add(byNode, node, component, rate);
      const subresource = event.objectRef?.subresource === undefined ? '' : `/${event.objectRef.subresource}`;
      add(nodeRequests, node, `${component} ${event.verb} ${event.objectRef?.resource ?? event.requestURI}${subresource}`, 1);
    }
    const collected = event.verb === 'list' ? reads.list : event.verb === 'watch' ? reads.watch : undefined;
    if (collected !== undefined && (PRODUCT_COMPONENTS as readonly string[]).includes(component)) {
      const resource = event.objectRef?.resource ?? '';
      const namespace = event.objectRef?.namespace;
      const scope = listScope(event.requestURI, node, identities);
      const key = `${component}\u0000${node ?? ''}\u0000${resource}\u0000${namespace ?? ''}\u0000${scope}`;
      const previous = collected.get(key);
      collected.set(key, { component, node, resource, namespace, scope, requestURI: event.requestURI, count: (previous?.count ?? 0) + 1 });
    }
  }
  return { seconds, total: within.length * rate, byComponent, byNode, nodeRequests, lists: [...reads.list.values()], watches: [...reads.watch.values()] };
}

/** Requests per second of one node's agents, the product's alone (driver and Multus daemon) or with the kubelet. */
export function nodeRate(load: ApiLoad, node: string, components: readonly string[] = ['driver', 'multusDaemon']): number {
  const rates = load.byNode[node] ?? {};
  return components.reduce((sum, component) => sum + (rates[component] ?? 0), 0);
}

export function componentRate(load: ApiLoad, component: string): number {
  return Object.values(load.byComponent[component] ?? {}).reduce((sum, value) => sum + value, 0);
}
