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
  /** attached: shadow exact, Multus reported it; pending: no CNI report yet; the rest name what is wrong. */
  readonly state: 'attached' | 'pending-cni' | 'not-prepared' | 'shadow-missing' | 'shadow-terminating' | 'shadow-replaced' | 'shadow-unreadable';
}

export interface PodInspection {
  readonly attachments: readonly AttachmentView[];
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
 * registry, each registered shadow and its binding annotation, and Multus's network-status. Pure; nothing
 * here needs the node's checkpoint, so an administrator can run it from anywhere with read access.
 */
export function inspectPod(input: {
  readonly pod: KubeObject;
  readonly allocated: readonly AllocatedVf[];
  readonly registry: readonly RegistryEntry[];
  /** Each registered shadow by name, or undefined when it does not exist. */
  readonly shadows: ReadonlyMap<string, KubeObject | undefined>;
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
      state: 'not-prepared',
    });
  }
  const podNamespace = input.pod.metadata.namespace ?? '';
  const conflictingManualEntries = selections(podAnnotations[annotations.networks])
    .map((selection) => `${selection.namespace ?? podNamespace}/${selection.name}`)
    .filter((name) => sources.has(name));
  return { attachments, conflictingManualEntries };
}
