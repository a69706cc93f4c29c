import { type DraConfigurationReason, draConfigurationReasons } from '@sriov-dra/contract';
import type { KubeObject } from '@sriov-dra/k8s';
import { NETWORK_READY_CONDITION } from '../network/network-ready.ts';
import { OWNER_REF_ANNOTATION, type SourceNadOptions, renderSourceNad } from '../render/source-nad.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';
import type { Condition } from '../status/conditions.ts';

/** A live read's outcome: the object, its absence, or a refusal of this operator's credentials. */
export type LiveRead<T> =
  { readonly kind: 'found'; readonly object: T } | { readonly kind: 'not-found' } | { readonly kind: 'forbidden'; readonly message: string };

export type SriovNetworkObject = KubeObject & SriovNetwork & { status?: { conditions?: readonly Condition[] } };
export type NadObject = KubeObject & { spec?: { config?: unknown } };

/** Where a policy's reference leads: the ready source NAD, or why it is unavailable (§12.2.3, §12.2.5). */
export type SourceResolution =
  | { readonly ok: true; readonly nad: { readonly name: string; readonly namespace: string } }
  | { readonly ok: false; readonly reason: DraConfigurationReason; readonly message: string };

function unavailable(reason: DraConfigurationReason, message: string): SourceResolution {
  return { ok: false, reason, message };
}

/**
 * Judges a referenced SriovNetwork and the NAD it renders to, both read live: usable only when the
 * SriovNetwork is not deleting, Ready=True for its current generation, renders (the namespace rule
 * included), and the NAD at the rendered place is not deleting, carries the rendered config and this
 * SriovNetwork's owner marker, and — in the same namespace — no ownerReference to another UID. The NAD is
 * named by rendering, never assumed to share the SriovNetwork's namespace.
 */
export function judgeSource(
  reference: { readonly namespace: string; readonly name: string },
  network: LiveRead<SriovNetworkObject>,
  readNad: (at: { readonly namespace: string; readonly name: string }) => LiveRead<NadObject>,
  options: SourceNadOptions,
): SourceResolution {
  const subject = `SriovNetwork ${reference.namespace}/${reference.name}`;
  if (network.kind === 'not-found') return unavailable(draConfigurationReasons.sriovNetworkNotFound, `${subject} does not exist`);
  if (network.kind === 'forbidden') return unavailable(draConfigurationReasons.sourceAccessDenied, `reading ${subject}: ${network.message}`);
  const object = network.object;
  if (object.metadata.deletionTimestamp !== undefined) return unavailable(draConfigurationReasons.sriovNetworkNotReady, `${subject} is being deleted`);
  const ready = object.status?.conditions?.find((condition) => condition.type === NETWORK_READY_CONDITION);
  const generation = object.metadata.generation ?? 0;
  if (ready?.status !== 'True') {
    return unavailable(
      draConfigurationReasons.sriovNetworkNotReady,
      `${subject} is not Ready${ready === undefined ? '' : ` (${ready.reason}: ${ready.message})`}`,
    );
  }
  if (ready.observedGeneration !== generation) {
    return unavailable(
      draConfigurationReasons.sriovNetworkNotReady,
      `${subject} Ready is for generation ${String(ready.observedGeneration)}, the object is at generation ${String(generation)}`,
    );
  }
  const rendered = renderSourceNad(object, options);
  if (!rendered.ok) return unavailable(draConfigurationReasons.sriovNetworkNotReady, rendered.error.message);
  const expected = rendered.value;
  const nadSubject = `source NAD ${expected.namespace}/${expected.name}`;
  const nad = readNad({ namespace: expected.namespace, name: expected.name });
  if (nad.kind === 'not-found') return unavailable(draConfigurationReasons.sourceNadNotReady, `${nadSubject} of ${subject} does not exist`);
  if (nad.kind === 'forbidden') return unavailable(draConfigurationReasons.sourceAccessDenied, `reading ${nadSubject}: ${nad.message}`);
  const found = nad.object;
  if (found.metadata.deletionTimestamp !== undefined) return unavailable(draConfigurationReasons.sourceNadNotReady, `${nadSubject} is being deleted`);
  if (found.metadata.annotations?.[OWNER_REF_ANNOTATION] !== expected.annotations[OWNER_REF_ANNOTATION]) {
    return unavailable(draConfigurationReasons.sourceNadNotReady, `${nadSubject} does not carry the owner marker of ${subject}`);
  }
  if (found.spec?.config !== expected.config)
    return unavailable(draConfigurationReasons.sourceNadNotReady, `${nadSubject} differs from what ${subject} renders`);
  if (expected.namespace === reference.namespace) {
    const foreign = (found.metadata.ownerReferences ?? []).find((owner) => owner['kind'] === 'SriovNetwork' && owner['uid'] !== object.metadata.uid);
    if (foreign !== undefined)
      return unavailable(draConfigurationReasons.sourceNadNotReady, `${nadSubject} is owned by another SriovNetwork (UID ${String(foreign['uid'])})`);
  }
  return { ok: true, nad: { name: expected.name, namespace: expected.namespace } };
}
