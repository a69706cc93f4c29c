import { DRIVER_NAME, MANAGED_BY_VALUE, type RegistryEntry, annotations, labels, parseBindingAnnotation, parseRegistry } from '@sriov-dra/contract';
import type { KubeObject } from '@sriov-dra/k8s';
import { z } from 'zod';
import { formatTable, yesNo } from './cli-output.ts';
import { type AllocatedVf, type AttachmentView, inspectPod } from './pod-inspection.ts';

/** The binding states `inspect` gives an attachment, in the order the overview shows them. */
export const BINDING_STATES = [
  'attached',
  'pending-cni',
  'not-prepared',
  'shadow-missing',
  'shadow-terminating',
  'shadow-replaced',
  'shadow-unreadable',
] as const satisfies readonly AttachmentView['state'][];

export type BindingCounts = Record<AttachmentView['state'], number>;

/** A shadow of the node whose owning Pod the API no longer has: gone, or replaced by a Pod of the same name. */
export interface ApiOrphan {
  readonly shadow: string;
  readonly reason: 'pod-gone' | 'pod-replaced' | 'unreadable-binding';
  readonly podUID?: string;
}

export interface NodeStatus {
  readonly node: string;
  /** The Node's Ready condition is True. */
  readonly nodeReady: boolean;
  /** The driver published a ResourceSlice for the node and the node is Ready. */
  readonly driverReady: boolean;
  /** Devices in the node's ResourceSlices of this driver (the pool's newest generation). */
  readonly vfsPublished: number;
  /** Devices of the node's pool named by ResourceClaims' allocation results for this driver. */
  readonly vfsAllocated: number;
  /** The node's shadow NADs (by the driver's labels) whose owning Pod exists: VFs bound to a shadow. */
  readonly vfsManaged: number;
  /** The node's Pods' attachments by `inspect` state. */
  readonly bindings: BindingCounts;
  /** Binding phases in the node's checkpoint; only when it was read (--plugins-dir on the node). */
  readonly checkpointPhases?: Readonly<Record<string, number>>;
  readonly orphans: readonly ApiOrphan[];
  /** Pods of the node whose managed-networks registry annotation is unreadable: their bindings are not counted. */
  readonly unreadableRegistries: readonly string[];
}

export interface StatusTotals {
  readonly nodes: number;
  readonly driversReady: number;
  readonly vfsPublished: number;
  readonly vfsAllocated: number;
  readonly vfsManaged: number;
  readonly bindings: BindingCounts;
  readonly orphans: number;
}

export interface StatusOverview {
  readonly nodes: readonly NodeStatus[];
  readonly totals: StatusTotals;
}

/** What the overview joins, as listed from the API (every list already scoped to the nodes shown). */
export interface StatusInput {
  readonly nodes: readonly KubeObject[];
  readonly slices: readonly KubeObject[];
  readonly claims: readonly KubeObject[];
  readonly pods: readonly KubeObject[];
  /** NADs carrying the driver's managed-by label. */
  readonly shadows: readonly KubeObject[];
  /** Binding phases by attachmentID from one node's checkpoint. */
  readonly checkpoint?: { readonly node: string; readonly phases: ReadonlyMap<string, string> };
}

// Only the fields the overview reads; every other field of these API objects is left unchecked.
const nodeSchema = z.looseObject({
  status: z.looseObject({ conditions: z.array(z.looseObject({ type: z.string(), status: z.string() })).optional() }).optional(),
});
const sliceSchema = z.looseObject({
  spec: z.looseObject({
    driver: z.string(),
    nodeName: z.string().optional(),
    pool: z.looseObject({ name: z.string(), generation: z.number() }),
    devices: z.array(z.unknown()).optional(),
  }),
});
const claimSchema = z.looseObject({
  status: z
    .looseObject({
      allocation: z
        .looseObject({
          devices: z
            .looseObject({ results: z.array(z.looseObject({ request: z.string(), driver: z.string(), pool: z.string(), device: z.string() })).optional() })
            .optional(),
        })
        .optional(),
      reservedFor: z.array(z.looseObject({ resource: z.string().optional(), uid: z.string() })).optional(),
    })
    .optional(),
});
const ownerReferencesSchema = z.array(z.looseObject({ kind: z.string(), name: z.string(), uid: z.string() }));
const podSchema = z.looseObject({ spec: z.looseObject({ nodeName: z.string().optional() }).optional() });

const noBindings = (): BindingCounts => Object.fromEntries(BINDING_STATES.map((state) => [state, 0])) as BindingCounts;

function isReady(node: KubeObject): boolean {
  const parsed = nodeSchema.safeParse(node);
  return parsed.success && (parsed.data.status?.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

/** Devices published per node: only the newest generation of each pool counts, older slices are on their way out. */
function publishedByNode(slices: readonly KubeObject[]): { readonly devices: Map<string, number>; readonly poolNode: Map<string, string> } {
  const parsed = slices.flatMap((slice) => {
    const result = sliceSchema.safeParse(slice);
    return result.success && result.data.spec.driver === DRIVER_NAME && result.data.spec.nodeName !== undefined
      ? [{ node: result.data.spec.nodeName, ...result.data.spec }]
      : [];
  });
  const newest = new Map<string, number>();
  for (const slice of parsed) newest.set(slice.pool.name, Math.max(newest.get(slice.pool.name) ?? 0, slice.pool.generation));
  const devices = new Map<string, number>();
  const poolNode = new Map<string, string>();
  for (const slice of parsed) {
    poolNode.set(slice.pool.name, slice.node);
    if (slice.pool.generation !== newest.get(slice.pool.name)) continue;
    devices.set(slice.node, (devices.get(slice.node) ?? 0) + (slice.devices?.length ?? 0));
  }
  return { devices, poolNode };
}

interface ClaimAllocation {
  readonly vfs: readonly AllocatedVf[];
  readonly reservedFor: readonly string[];
}

function allocationsOf(claims: readonly KubeObject[]): ClaimAllocation[] {
  return claims.flatMap((claim) => {
    const parsed = claimSchema.safeParse(claim);
    if (!parsed.success) return [];
    const vfs = (parsed.data.status?.allocation?.devices?.results ?? [])
      .filter((result) => result.driver === DRIVER_NAME)
      .map((result) => ({ claimName: claim.metadata.name, claimUID: claim.metadata.uid, request: result.request, pool: result.pool, device: result.device }));
    const reservedFor = (parsed.data.status?.reservedFor ?? []).filter((consumer) => consumer.resource === 'pods').map((consumer) => consumer.uid);
    return vfs.length === 0 ? [] : [{ vfs, reservedFor }];
  });
}

function nodeOfPod(pod: KubeObject): string | undefined {
  const parsed = podSchema.safeParse(pod);
  return parsed.success ? parsed.data.spec?.nodeName : undefined;
}

/** The Pods a shadow's owner references name (its owning Pod, as the driver creates it). */
export function podOwnersOf(shadow: KubeObject): { readonly name: string; readonly uid: string }[] {
  const parsed = ownerReferencesSchema.safeParse(shadow.metadata.ownerReferences ?? []);
  return parsed.success ? parsed.data.filter((reference) => reference.kind === 'Pod') : [];
}

function podUIDOf(shadow: KubeObject): string | undefined {
  const raw = shadow.metadata.annotations?.[annotations.binding];
  const binding = raw === undefined ? undefined : parseBindingAnnotation(raw);
  return binding?.ok === true ? binding.value.podUID : undefined;
}

/** The node's shadows whose owning Pod the API has not got (by UID); the owner reference's name tells gone from replaced. */
function apiOrphans(shadows: readonly KubeObject[], pods: { readonly uids: ReadonlySet<string>; readonly names: ReadonlySet<string> }): ApiOrphan[] {
  const { uids, names: byName } = pods;
  return shadows.flatMap((shadow): ApiOrphan[] => {
    const name = `${shadow.metadata.namespace ?? ''}/${shadow.metadata.name}`;
    const podUID = podUIDOf(shadow);
    if (podUID === undefined) return [{ shadow: name, reason: 'unreadable-binding' }];
    if (uids.has(podUID)) return [];
    const owner = podOwnersOf(shadow).find((reference) => reference.uid === podUID);
    const replaced = owner !== undefined && byName.has(`${shadow.metadata.namespace ?? ''}/${owner.name}`);
    return [{ shadow: name, reason: replaced ? 'pod-replaced' : 'pod-gone', podUID }];
  });
}

function registryOf(pod: KubeObject): { readonly entries: readonly RegistryEntry[] } | undefined {
  const raw = pod.metadata.annotations?.[annotations.managedNetworks];
  if (raw === undefined) return { entries: [] };
  const at = { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name, field: `annotation ${annotations.managedNetworks}` };
  const parsed = parseRegistry(raw, at);
  return parsed.ok ? parsed.value : undefined;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const at = key(item);
    if (at === undefined) continue;
    const group = groups.get(at);
    if (group === undefined) groups.set(at, [item]);
    else group.push(item);
  }
  return groups;
}

function countPhases(phases: ReadonlyMap<string, string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const phase of phases.values()) counts[phase] = (counts[phase] ?? 0) + 1;
  return counts;
}

/**
 * The driver's state per node and in total, from what the API shows: whether the driver publishes the
 * node's VFs, how many are published, allocated and bound to shadows, the node's Pods' bindings by the
 * state `inspect` gives them, and the shadows whose Pod is gone or replaced. Pure; a shadow the API still
 * ties to a live Pod but the checkpoint no longer accounts for is `sriov-dra orphans`' to find.
 */
export function statusOverview(input: StatusInput): StatusOverview {
  const published = publishedByNode(input.slices);
  const allocations = allocationsOf(input.claims);
  const managedShadows = input.shadows.filter((shadow) => shadow.metadata.labels?.[labels.managedBy] === MANAGED_BY_VALUE);
  const shadowsByName = new Map(managedShadows.map((shadow) => [`${shadow.metadata.namespace ?? ''}/${shadow.metadata.name}`, shadow]));
  // Grouped once, so that the overview of a large cluster stays linear in its objects.
  const shadowsByNodeUID = groupBy(managedShadows, (shadow) => shadow.metadata.labels?.[labels.nodeUID]);
  const podsByNode = groupBy(input.pods, nodeOfPod);
  const livePods = {
    uids: new Set(input.pods.map((pod) => pod.metadata.uid)),
    names: new Set(input.pods.map((pod) => `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`)),
  };
  const allocatedByNode = groupBy(
    allocations.flatMap((allocation) => allocation.vfs),
    (vf) => published.poolNode.get(vf.pool) ?? vf.pool,
  );
  const allocatedByPod = new Map<string, AllocatedVf[]>();
  for (const allocation of allocations)
    for (const uid of allocation.reservedFor) allocatedByPod.set(uid, [...(allocatedByPod.get(uid) ?? []), ...allocation.vfs]);
  const nodes = [...input.nodes]
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .map((node): NodeStatus => {
      const name = node.metadata.name;
      const nodeReady = isReady(node);
      const vfsPublished = published.devices.get(name) ?? 0;
      const vfsAllocated = allocatedByNode.get(name)?.length ?? 0;
      const nodeShadows = shadowsByNodeUID.get(node.metadata.uid) ?? [];
      const orphans = apiOrphans(nodeShadows, livePods);
      const bindings = noBindings();
      const unreadableRegistries: string[] = [];
      for (const pod of podsByNode.get(name) ?? []) {
        const registry = registryOf(pod);
        if (registry === undefined) {
          unreadableRegistries.push(`${pod.metadata.namespace ?? ''}/${pod.metadata.name}`);
          continue;
        }
        const allocated = allocatedByPod.get(pod.metadata.uid) ?? [];
        if (registry.entries.length === 0 && allocated.length === 0) continue;
        const shadows = new Map(registry.entries.map((entry) => [entry.name, shadowsByName.get(`${entry.namespace}/${entry.name}`)]));
        for (const attachment of inspectPod({ pod, allocated, registry: registry.entries, shadows }).attachments) bindings[attachment.state] += 1;
      }
      const checkpoint = input.checkpoint?.node === name ? { checkpointPhases: countPhases(input.checkpoint.phases) } : {};
      return {
        node: name,
        nodeReady,
        driverReady: nodeReady && published.devices.has(name),
        vfsPublished,
        vfsAllocated,
        vfsManaged: nodeShadows.length - orphans.length,
        bindings,
        ...checkpoint,
        orphans,
        unreadableRegistries,
      };
    });
  const sum = (field: (node: NodeStatus) => number): number => nodes.reduce((total, node) => total + field(node), 0);
  const bindings = noBindings();
  for (const node of nodes) for (const state of BINDING_STATES) bindings[state] += node.bindings[state];
  return {
    nodes,
    totals: {
      nodes: nodes.length,
      driversReady: nodes.filter((node) => node.driverReady).length,
      vfsPublished: sum((node) => node.vfsPublished),
      vfsAllocated: sum((node) => node.vfsAllocated),
      vfsManaged: sum((node) => node.vfsManaged),
      bindings,
      orphans: sum((node) => node.orphans.length),
    },
  };
}

/** The footnote every table ends with: what the orphan count covers, and where the rest is found. */
export const ORPHANS_FOOTNOTE =
  'orphans: shadows whose Pod the API no longer has (gone or replaced); shadows a node’s checkpoint no longer accounts for are listed on the node by `sriov-dra orphans --node-name NODE`';

const counted = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => `${key}=${count}`)
    .join(' ') || '-';

/** One row per node and a total row; wide adds the checkpoint's phases. Then each orphan, and the footnote. */
export function statusTable(overview: StatusOverview, wide: boolean): string {
  const header = ['NODE', 'READY', 'DRIVER', 'VFS', 'ALLOCATED', 'MANAGED', 'BINDINGS', 'ORPHANS', ...(wide ? ['CHECKPOINT'] : [])];
  const rows = overview.nodes.map((node) => [
    node.node,
    yesNo(node.nodeReady),
    node.driverReady ? 'ready' : 'no',
    String(node.vfsPublished),
    String(node.vfsAllocated),
    String(node.vfsManaged),
    counted(node.bindings),
    String(node.orphans.length),
    ...(wide ? [node.checkpointPhases === undefined ? '-' : counted(node.checkpointPhases)] : []),
  ]);
  const { totals } = overview;
  const total = [
    'TOTAL',
    `${totals.nodes} nodes`,
    `${totals.driversReady} ready`,
    String(totals.vfsPublished),
    String(totals.vfsAllocated),
    String(totals.vfsManaged),
    counted(totals.bindings),
    String(totals.orphans),
    ...(wide ? ['-'] : []),
  ];
  const orphans = overview.nodes.flatMap((node) =>
    node.orphans.map((orphan) => `orphan on ${node.node}: ${orphan.shadow} ${orphan.reason}${orphan.podUID === undefined ? '' : ` pod=${orphan.podUID}`}\n`),
  );
  const unreadable = overview.nodes.flatMap((node) =>
    node.unreadableRegistries.map(
      (pod) => `unreadable managed-networks registry: Pod ${pod} on ${node.node}; its bindings are not counted (sriov-dra inspect pod ${pod})\n`,
    ),
  );
  return `${formatTable(header, [...rows, total])}${orphans.join('')}${unreadable.join('')}${ORPHANS_FOOTNOTE}\n`;
}
