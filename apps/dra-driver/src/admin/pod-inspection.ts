import { type BindingAnnotationV1, type RegistryEntry, annotations, parseBindingAnnotation } from '@sriov-dra/contract';
import type { KubeObject } from '@sriov-dra/k8s';
import { deviceNameOf } from '../discovery/device-name.ts';

/** One device this driver allocated to one of the Pod's claims. */
export interface AllocatedVf {
  readonly claimName: string;
  readonly claimUID: string;
  readonly request: string;
  readonly pool: string;
  readonly device: string;
}

/** What inspection shows per attachment (§19.2 items 1–2): allocation, template, shadow, interface, addresses. */
export interface AttachmentView {
  readonly claim: string;
  readonly request: string;
  readonly device: string;
  readonly pci: string;
  readonly source: string;
  readonly shadow: string;
  readonly interface: string;
  readonly ips: readonly string[];
  /** The IPAM the shadow's frozen configuration hands the VF to: its type and, when it names one, its subnet or range. */
  readonly ipam: string;
  /** The binding's phase in the node's checkpoint, when inspection was given it; '-' otherwise. */
  readonly phase: string;
  /** attached: shadow exact, Multus reported it; pending: no CNI report yet; the rest name what is wrong. */
  readonly state: 'attached' | 'pending-cni' | 'not-prepared' | 'shadow-missing' | 'shadow-terminating' | 'shadow-replaced' | 'shadow-unreadable';
}

export interface PodInspection {
  readonly attachments: readonly AttachmentView[];
  /** What the driver's identity may not do that managed attachment of this Pod needs (empty when unchecked). */
  readonly permissionGaps: readonly string[];
  /** Networks-annotation entries naming a source template a managed attachment of this Pod renders from. */
  readonly conflictingManualEntries: readonly string[];
}

interface NetworkStatusEntry {
  readonly name?: unknown;
  readonly ips?: unknown;
}

function reportedIps(networkStatus: string | undefined): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  if (networkStatus === undefined) return byName;
  try {
    const parsed = JSON.parse(networkStatus) as unknown;
    if (!Array.isArray(parsed)) return byName;
    for (const entry of parsed as NetworkStatusEntry[]) {
      if (typeof entry.name !== 'string') continue;
      byName.set(entry.name, Array.isArray(entry.ips) ? entry.ips.filter((ip): ip is string => typeof ip === 'string') : []);
    }
  } catch {
    // An unreadable report shows as no report.
  }
  return byName;
}

/** The sriov entry's IPAM of a shadow configuration (single plugin or first of a conflist), as "type subnet". */
function ipamOf(shadow: KubeObject | undefined): string {
  const config = (shadow as { spec?: { config?: unknown } } | undefined)?.spec?.config;
  if (typeof config !== 'string') return '?';
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    return '?';
  }
  const root = parsed as { ipam?: unknown; plugins?: unknown };
  const entry = Array.isArray(root.plugins) ? (root.plugins[0] as { ipam?: unknown } | undefined) : root;
  const ipam = entry?.ipam as { type?: unknown; subnet?: unknown; range?: unknown } | undefined;
  if (ipam === undefined || typeof ipam.type !== 'string') return 'none';
  const scope = typeof ipam.subnet === 'string' ? ipam.subnet : typeof ipam.range === 'string' ? ipam.range : undefined;
  return scope === undefined ? ipam.type : `${ipam.type} ${scope}`;
}

function bindingOf(shadow: KubeObject | undefined): BindingAnnotationV1 | undefined {
  const raw = shadow?.metadata.annotations?.[annotations.binding];
  if (raw === undefined) return undefined;
  const parsed = parseBindingAnnotation(raw);
  return parsed.ok ? parsed.value : undefined;
}

function selections(networks: string | undefined): { name: string; namespace?: string }[] {
  if (networks === undefined) return [];
  try {
    const parsed = JSON.parse(networks) as unknown;
    if (Array.isArray(parsed))
      return parsed.filter((entry): entry is { name: string; namespace?: string } => typeof (entry as { name?: unknown }).name === 'string');
  } catch {
    // The comma form: "ns/name@if, other".
  }
  return networks.split(',').flatMap((part) => {
    const [ref = ''] = part.trim().split('@');
    const [first = '', second] = ref.split('/');
    return ref === '' ? [] : [second === undefined ? { name: first } : { namespace: first, name: second }];
  });
}

/**
 * Joins what the API shows about a Pod's managed networks: its claims' allocations of this driver, its
 * registry, each registered shadow and its binding annotation, and Multus's network-status; on the node,
 * the checkpoint's phases too. Pure; the API alone is enough, so an administrator can run it from
 * anywhere with read access.
 */
export function inspectPod(input: {
  readonly pod: KubeObject;
  readonly allocated: readonly AllocatedVf[];
  readonly registry: readonly RegistryEntry[];
  /** Each registered shadow by name, or undefined when it does not exist. */
  readonly shadows: ReadonlyMap<string, KubeObject | undefined>;
  /** Binding phases by attachmentID, from the node's checkpoint when it is readable. */
  readonly phases?: ReadonlyMap<string, string>;
  readonly permissionGaps?: readonly string[];
}): PodInspection {
  const podAnnotations = input.pod.metadata.annotations ?? {};
  const ips = reportedIps(podAnnotations[annotations.networkStatus]);
  const attachments: AttachmentView[] = [];
  const covered = new Set<string>();
  const sources = new Set<string>();
  for (const entry of input.registry) {
    const shadow = input.shadows.get(entry.name);
    const binding = bindingOf(shadow);
    const device = binding === undefined ? '?' : deviceNameOf(binding.pciAddress);
    const allocation = input.allocated.find((vf) => vf.claimUID === entry.claimUID && vf.device === device);
    if (allocation !== undefined) covered.add(`${allocation.claimUID}/${allocation.device}`);
    if (binding !== undefined) sources.add(`${binding.source.namespace}/${binding.source.name}`);
    const reported = ips.get(`${entry.namespace}/${entry.name}`);
    const state: AttachmentView['state'] =
      shadow === undefined
        ? 'shadow-missing'
        : shadow.metadata.uid !== entry.uid
          ? 'shadow-replaced'
          : binding === undefined
            ? 'shadow-unreadable'
            : shadow.metadata.deletionTimestamp !== undefined
              ? 'shadow-terminating'
              : reported === undefined
                ? 'pending-cni'
                : 'attached';
    attachments.push({
      claim: allocation?.claimName ?? entry.claimUID,
      request: allocation?.request ?? '?',
      device: allocation === undefined ? device : `${allocation.pool}/${allocation.device}`,
      pci: binding?.pciAddress ?? '?',
      source: binding === undefined ? '?' : `${binding.source.namespace}/${binding.source.name}@${binding.source.resourceVersion}`,
      shadow: `${entry.namespace}/${entry.name}`,
      interface: entry.interface,
      ips: reported ?? [],
      ipam: ipamOf(shadow),
      phase: input.phases?.get(entry.attachmentID) ?? '-',
      state,
    });
  }
  for (const vf of input.allocated) {
    if (covered.has(`${vf.claimUID}/${vf.device}`)) continue;
    attachments.push({
      claim: vf.claimName,
      request: vf.request,
      device: `${vf.pool}/${vf.device}`,
      pci: '?',
      source: '?',
      shadow: '-',
      interface: '-',
      ips: [],
      ipam: '-',
      phase: '-',
      state: 'not-prepared',
    });
  }
  const podNamespace = input.pod.metadata.namespace ?? '';
  const conflictingManualEntries = selections(podAnnotations[annotations.networks])
    .map((selection) => `${selection.namespace ?? podNamespace}/${selection.name}`)
    .filter((name) => sources.has(name));
  return { attachments, permissionGaps: input.permissionGaps ?? [], conflictingManualEntries };
}
