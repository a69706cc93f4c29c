import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { OWNER_REF_ANNOTATION, type SourceNad } from '../render/source-nad.ts';

const NAD_API_VERSION = `${resourceTypes.networkAttachmentDefinition.group}/${resourceTypes.networkAttachmentDefinition.version}`;
const SRIOV_NETWORK_API_VERSION = `${resourceTypes.sriovNetwork.group}/${resourceTypes.sriovNetwork.version}`;

export interface NetworkIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * The server-side-apply body of a SriovNetwork's source NAD: the rendered annotations and config, plus an
 * ownerReference when the NAD shares the SriovNetwork's namespace (garbage collection then removes it; a
 * NAD elsewhere is cleaned up through the finalizer). The reference is a plain owner, not a controller and
 * not blocking, as upstream's SetOwnerReference writes it.
 */
export function sourceNadApplyBody(network: NetworkIdentity, nad: SourceNad): Record<string, unknown> {
  const sameNamespace = nad.namespace === network.namespace;
  return {
    apiVersion: NAD_API_VERSION,
    kind: resourceTypes.networkAttachmentDefinition.kind,
    metadata: {
      name: nad.name,
      namespace: nad.namespace,
      annotations: { ...nad.annotations },
      ...(sameNamespace
        ? { ownerReferences: [{ apiVersion: SRIOV_NETWORK_API_VERSION, kind: resourceTypes.sriovNetwork.kind, name: network.name, uid: network.uid }] }
        : {}),
    },
    spec: { config: nad.config },
  };
}

export type ExistingNadVerdict =
  /** Carries another nonempty owner marker: never touched, reported. */
  | { readonly kind: 'foreign'; readonly owner: string }
  /** Being deleted: it is recreated once gone (its deletion event wakes the controller). */
  | { readonly kind: 'terminating' }
  /** Ours (or unmarked, which upstream adopts) and different from the rendering. */
  | { readonly kind: 'write' }
  | { readonly kind: 'current' };

/**
 * What the controller may do with a NAD found at the target name. Only the fields this controller sets are
 * compared: annotations and owners added by others stay, as server-side apply leaves them.
 */
export function existingNadVerdict(found: KubeObject & { spec?: { config?: unknown } }, network: NetworkIdentity, nad: SourceNad): ExistingNadVerdict {
  const owner = found.metadata.annotations?.[OWNER_REF_ANNOTATION] ?? '';
  if (owner !== '' && owner !== nad.annotations[OWNER_REF_ANNOTATION]) return { kind: 'foreign', owner };
  if (found.metadata.deletionTimestamp !== undefined) return { kind: 'terminating' };
  const annotationsCurrent = Object.entries(nad.annotations).every(([key, value]) => found.metadata.annotations?.[key] === value);
  const ownerCurrent = nad.namespace !== network.namespace || (found.metadata.ownerReferences ?? []).some((reference) => reference['uid'] === network.uid);
  return found.spec?.config === nad.config && annotationsCurrent && ownerCurrent ? { kind: 'current' } : { kind: 'write' };
}
