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
import type { NetworkSelection } from '@sriov-dra/cni-render';
import { checkShadowConfig } from './shadow-config.ts';
import { readShadowBinding } from './shadow-binding.ts';
import { checkShadowSemantics } from './shadow-semantics.ts';

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
    readonly ownerReferences?: readonly { readonly apiVersion: string; readonly kind: string; readonly name: string; readonly uid: string }[];
  };
  readonly spec?: { readonly config?: string };
}

/**
 * How an ADD reached a NAD: as the master (the daemon's clusterNetwork, or the Pod's
 * v1.multus-cni.io/default-network override, which carries its selection), as a configured
 * defaultNetworks entry, or as a selection of the Pod's networks annotation.
 */
export interface NadReference {
  readonly role: 'master' | 'default' | 'selection';
  readonly selection?: NetworkSelection;
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

/** Where a shadow was named other than by a selection, in the words of the daemon configuration or the Pod. */
function describeReference(reference: NadReference): string {
  if (reference.role === 'default') return 'is named in the daemon configuration\u2019s defaultNetworks';
  if (reference.selection !== undefined) return 'is named by the Pod\u2019s v1.multus-cni.io/default-network annotation';
  return 'is the daemon configuration\u2019s clusterNetwork';
}

/**
 * The ownerReferences rule: the bound Pod, as a core v1 Pod, exactly once, and no other Pod. Every
 * reference of kind Pod counts, not the first one only: the garbage collector honours them all, and a
 * second Pod owner would make the shadow look like a resource of that Pod too.
 */
function checkPodOwner(pod: GuardPod, nad: GuardNad): string | null {
  const references = nad.metadata.ownerReferences ?? [];
  let owners = 0;
  for (const [index, reference] of references.entries()) {
    if (reference.kind !== 'Pod') continue;
    const at = `ownerReferences[${String(index)}]`;
    if (reference.uid !== pod.metadata.uid) {
      return `${at} names foreign Pod ${reference.name} (UID ${reference.uid}); a shadow is owned by its bound Pod ${describePod(pod)} alone`;
    }
    if (reference.apiVersion !== 'v1') return `${at} names the bound Pod with apiVersion ${reference.apiVersion}, not v1`;
    owners += 1;
  }
  if (owners === 0) return `has no ownerReference to its bound Pod ${describePod(pod)}`;
  if (owners > 1) return `names its bound Pod ${describePod(pod)} ${String(owners)} times in ownerReferences`;
  return null;
}

/**
 * The metadata-only checks of §10.3 for one NAD an ADD reached, before any delegate runs. Everything
 * is compared with objects this ADD already read (the Pod, the NAD, the Pod's registry): no claim,
 * slice or device-plugin lookup. Returns null for an ordinary NAD, which the guard leaves alone. A
 * shadow reached as the cluster network, a defaultNetworks entry or the default-network override is
 * refused: the driver binds a VF only through the managed selection it writes into the networks
 * annotation, and the registry records exactly those, so no binding can make such a use legitimate.
 */
export function verifyManagedShadow(pod: GuardPod, nad: GuardNad, reference: NadReference, registry: RegistryV1 | null): Result<VerifiedShadow | null> {
  const bindingRead = readShadowBinding(nad);
  if (!bindingRead.ok) return bindingRead;
  if (bindingRead.value === null) return ok(null);
  const binding = bindingRead.value;
  const object = nadRef(nad);
  const { selection } = reference;
  if (reference.role !== 'selection' || selection === undefined) {
    return fail('ManagedShadowAsDefaultNetwork', `${describeReference(reference)}; it is a driver-generated shadow (attachment ${binding.attachmentID})`, {
      object,
    });
  }
  const mismatch = (detail: string): Result<never> => fail('ManagedShadowMismatch', detail, { object });
  const notReady = (detail: string): Result<never> => fail('ManagedShadowNotReady', detail, { object });

  if (binding.podUID !== pod.metadata.uid) return mismatch(`is bound to Pod UID ${binding.podUID}, not to Pod ${describePod(pod)}`);
  const owner = checkPodOwner(pod, nad);
  if (owner !== null) return mismatch(owner);
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
  // The exact bytes the driver froze, by their hash; then what they mean, checked here rather than by
  // re-rendering, so a driver and a daemon of different releases agree during a rolling upgrade.
  const config = checkShadowConfig(nad, binding);
  if (!config.ok) return config;
  const semantics = checkShadowSemantics(config.value, binding.pciAddress, object);
  if (!semantics.ok) return semantics;

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
    if (entry.claimUID !== binding.claimUID) {
      return mismatch(`is bound to claim UID ${binding.claimUID}, but the Pod's ${annotations.managedNetworks} registry records claim UID ${entry.claimUID}`);
    }
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
