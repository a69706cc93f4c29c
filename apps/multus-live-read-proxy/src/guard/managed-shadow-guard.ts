import {
  ATTACHMENT_PROTECTION_FINALIZER,
  type BindingAnnotationV1,
  type ObjectRef,
  type RegistryV1,
  type Result,
  annotations,
  fail,
  ok,
} from '@sriov-dra/contract';
import { type NetworkSelection, renderShadowConfig } from '@sriov-dra/cni-render';
import { checkShadowConfig } from './shadow-config.ts';
import { readShadowBinding } from './shadow-binding.ts';

/** The Pod fields the guard compares a shadow against: all of them come from the ADD's own Pod read. */
export interface GuardPod {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid: string };
  readonly spec: { readonly nodeName?: string };
}

/** The NAD fields the guard reads. */
export interface GuardNad {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly deletionTimestamp?: string;
    readonly ownerReferences?: readonly { readonly kind: string; readonly uid: string; readonly apiVersion: string }[];
  };
  readonly spec?: { readonly config?: string };
}

/** A selected NAD, with the selection that named it. */
export interface SelectedNad {
  readonly selection: NetworkSelection;
  readonly nad: GuardNad;
}

/** A managed shadow that passed every check: the exact configuration to execute and its binding. */
export interface VerifiedShadow {
  readonly binding: BindingAnnotationV1;
  readonly config: string;
}

/** Keys a driver-generated selection carries (contract: GeneratedSelection); anything else would override the binding. */
const GENERATED_SELECTION_KEYS: ReadonlySet<string> = new Set(['name', 'namespace', 'interface']);

function nadRef(nad: GuardNad): ObjectRef {
  return { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name, uid: nad.metadata.uid };
}

/**
 * The metadata-only checks of §10.3 for one selected shadow, before any delegate runs. Everything is
 * compared with objects this ADD already read (the Pod, the NAD, the Pod's registry): no claim, slice or
 * device-plugin lookup. Returns null for an ordinary NAD, which the guard leaves alone.
 */
export function verifyManagedShadow(pod: GuardPod, selected: SelectedNad, registry: RegistryV1 | null): Result<VerifiedShadow | null> {
  const { nad, selection } = selected;
  const bindingRead = readShadowBinding(nad);
  if (!bindingRead.ok) return bindingRead;
  if (bindingRead.value === null) return ok(null);
  const binding = bindingRead.value;
  const object = nadRef(nad);
  const mismatch = (detail: string): Result<never> => fail('ManagedShadowMismatch', detail, { object });
  const notReady = (detail: string): Result<never> => fail('ManagedShadowNotReady', detail, { object });

  if (binding.podUID !== pod.metadata.uid) return mismatch(`is bound to Pod UID ${binding.podUID}, not to Pod ${describePod(pod)}`);
  const owner = nad.metadata.ownerReferences?.find((reference) => reference.kind === 'Pod' && reference.apiVersion === 'v1');
  if (owner?.uid !== pod.metadata.uid) {
    return mismatch(`its Pod ownerReference ${owner === undefined ? 'is missing' : `names UID ${owner.uid}`}; it must name Pod ${describePod(pod)}`);
  }
  if (binding.nodeName !== pod.spec.nodeName) {
    return mismatch(`is bound to node ${binding.nodeName}, but Pod ${describePod(pod)} runs on ${pod.spec.nodeName ?? 'no node'}`);
  }
  if (nad.metadata.namespace !== pod.metadata.namespace) {
    return mismatch(
      `lives in namespace ${nad.metadata.namespace ?? '(none)'}; a shadow serves only a Pod of its own namespace ${pod.metadata.namespace ?? ''}`,
    );
  }
  if (nad.metadata.deletionTimestamp !== undefined) return notReady(`is being deleted (deletionTimestamp ${nad.metadata.deletionTimestamp})`);
  if (!(nad.metadata.finalizers ?? []).includes(ATTACHMENT_PROTECTION_FINALIZER)) {
    return notReady(`lacks the ${ATTACHMENT_PROTECTION_FINALIZER} finalizer that keeps its VF bound until release`);
  }
  if (nad.metadata.annotations !== undefined && Object.hasOwn(nad.metadata.annotations, annotations.resourceName)) {
    return notReady(`carries ${annotations.resourceName}; a shadow names its VF in spec.config and must not enter device-plugin lookup`);
  }
  const config = checkShadowConfig(nad, binding);
  if (!config.ok) return config;
  // A frozen render re-renders to itself: this checks the topology (one sriov entry, allowlisted
  // metaplugins) and that the embedded deviceID, decoded as Go decodes it, is the bound PCI address.
  const rerender = renderShadowConfig({ metadata: nad.metadata, spec: { config: config.value } }, binding.pciAddress);
  if (!rerender.ok) return mismatch(`spec.config is not a valid shadow configuration for ${binding.pciAddress}: ${rerender.error.message}`);
  if (rerender.value.bytes !== config.value) return mismatch(`spec.config is not the configuration the driver renders for ${binding.pciAddress}`);

  const extra = [...selection.raw.keys()].filter((key) => !GENERATED_SELECTION_KEYS.has(key));
  if (extra.length > 0)
    return mismatch(`is selected with overriding options ${extra.join(', ')}; a managed selection carries only name, namespace and interface`);
  if (selection.interface !== binding.interface) {
    return mismatch(`is selected for interface ${selection.interface ?? '(default)'}, but is bound to ${binding.interface}`);
  }
  if (registry !== null) {
    const entry = registry.entries.find((candidate) => candidate.name === nad.metadata.name && candidate.namespace === nad.metadata.namespace);
    if (entry === undefined) return mismatch(`is not recorded in Pod ${describePod(pod)}'s ${annotations.managedNetworks} registry`);
    if (entry.uid !== nad.metadata.uid) return mismatch(`has UID ${nad.metadata.uid}, but the Pod's registry records ${entry.uid}: the shadow was replaced`);
    if (entry.configSHA256 !== binding.configSHA256 || entry.attachmentID !== binding.attachmentID || entry.interface !== binding.interface) {
      return mismatch(`disagrees with its entry in the Pod's ${annotations.managedNetworks} registry`);
    }
  }
  return ok({ binding, config: config.value });
}

/**
 * Registry cross-check over the whole selection list (§9, §10.3): every recorded managed entry is
 * selected exactly once. A missing entry would let the Pod start without a VF it was allocated; a
 * repeated one would hand one VF to two interfaces.
 */
export function verifyRegistrySelections(pod: GuardPod, registry: RegistryV1 | null, selections: readonly NetworkSelection[]): Result<void> {
  if (registry === null) return ok(undefined);
  const object: ObjectRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  for (const entry of registry.entries) {
    const count = selections.filter((selection) => selection.name === entry.name && selection.namespace === entry.namespace).length;
    if (count !== 1) {
      return fail(
        'ManagedShadowMismatch',
        `the managed network ${entry.namespace}/${entry.name} (attachment ${entry.attachmentID}) is selected ${String(count)} times; it must be selected exactly once`,
        {
          object,
        },
      );
    }
  }
  return ok(undefined);
}

function describePod(pod: GuardPod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name} (UID ${pod.metadata.uid})`;
}
