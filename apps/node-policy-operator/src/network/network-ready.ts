/** SriovNetwork's condition and reasons, spelled as the upstream operator spells them (api/v1/conditions.go). */
export const NETWORK_READY_CONDITION = 'Ready';

export const networkReadyReasons = {
  ready: 'NetworkReady',
  nadNotFound: 'NetworkAttachmentDefinitionNotFound',
  nadInvalid: 'NetworkAttachmentDefinitionInvalid',
  namespaceNotFound: 'NamespaceNotFound',
} as const;

export type NetworkReadyReason = (typeof networkReadyReasons)[keyof typeof networkReadyReasons];

/** Upstream's message for a provisioned NAD; consumers may match on the reason, never on this text. */
export const NETWORK_READY_MESSAGE = 'NetworkAttachmentDefinition is provisioned and ready';

/**
 * On a SriovNetwork in the operator namespace whose NAD lives elsewhere: no ownerReference can cross
 * namespaces, so deletion of the NAD waits on this finalizer (upstream's name, so either operator can
 * finish the other's cleanup).
 */
export const NAD_CLEANUP_FINALIZER = 'netattdef.finalizers.sriovnetwork.openshift.io';

/** Where the NAD was last written, so a changed spec.networkNamespace removes the old one (upstream's key). */
export const LAST_NETWORK_NAMESPACE_ANNOTATION = 'operator.sriovnetwork.openshift.io/last-network-namespace';
