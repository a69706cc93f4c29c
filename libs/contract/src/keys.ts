/**
 * Names shared by the driver, the Multus proxy and the operator. Every one of them is part of the
 * on-cluster contract: renaming a value strands objects written by an older release.
 */

/** DRA driver name; it is also the API group of the driver's own custom resources. */
export const DRIVER_NAME = 'sriovnetwork.k8snetworkplumbingwg.io';

/** API version of the driver's custom resources and of the VfConfig opaque parameters. */
export const DRIVER_API_VERSION = `${DRIVER_NAME}/v1alpha1`;

export const annotations = {
  /** Versioned provenance on every generated shadow NAD (binding annotation v1). */
  binding: `${DRIVER_NAME}/binding`,
  /** The driver's registry of the Pod network selections it owns (registry v1). */
  managedNetworks: `${DRIVER_NAME}/managed-networks`,
  /** Multus network selection list on the Pod. */
  networks: 'k8s.v1.cni.cncf.io/networks',
  /** Multus result report on the Pod. */
  networkStatus: 'k8s.v1.cni.cncf.io/network-status',
  /**
   * Device-plugin lookup key on a NAD. Multus enters its lookup branch when the key merely exists, so a
   * shadow must not carry it at all — not even with an empty value.
   */
  resourceName: 'k8s.v1.cni.cncf.io/resourceName',
} as const;

/** Finalizer that keeps a shadow NAD until the driver has released the VF behind it. */
export const ATTACHMENT_PROTECTION_FINALIZER = `${DRIVER_NAME}/attachment-protection`;

export const labels = {
  managedBy: `${DRIVER_NAME}/managed-by`,
  podUID: `${DRIVER_NAME}/pod-uid`,
  claimUID: `${DRIVER_NAME}/claim-uid`,
  nodeUID: `${DRIVER_NAME}/node-uid`,
} as const;

/** Value of the managed-by label on every object the driver generates. */
export const MANAGED_BY_VALUE = 'sriov-dra';

/**
 * Per-device attributes that select the source NAD template (§5.1). In a DeviceAttributes object the
 * bare names (netAttachDefName, netAttachDefNamespace) mean the same attributes: a name without a domain
 * is in the driver's domain (qualifiedAttributeName).
 */
export const attributeKeys = {
  netAttachDefName: `${DRIVER_NAME}/netAttachDefName`,
  netAttachDefNamespace: `${DRIVER_NAME}/netAttachDefNamespace`,
  /**
   * Device-plugin compatibility attribute the operator generates (note the attribute domain differs from
   * the NAD annotation key). It plays no part in managed attachment selection.
   */
  resourceName: 'k8s.cni.cncf.io/resourceName',
} as const;

/** Operator-only inputs in SriovNetworkNodePolicy.spec.dra.attributes; consumed, never published (§12.2.1). */
export const operatorInputKeys = {
  sriovNetworkName: 'sriovnetwork.openshift.io/sriovNetworkName',
  sriovNetworkNamespace: 'sriovnetwork.openshift.io/sriovNetworkNamespace',
} as const;

/**
 * Attributes owned by hardware discovery. Configuration may never supply them: the PCI address in
 * particular must come from trusted discovery, not from an attribute override (§5.1, §12.2.2).
 */
export const DISCOVERY_RESERVED_ATTRIBUTES: readonly string[] = [
  `${DRIVER_NAME}/vendor`,
  `${DRIVER_NAME}/deviceID`,
  `${DRIVER_NAME}/pfDeviceID`,
  `${DRIVER_NAME}/pciAddress`,
  `${DRIVER_NAME}/PFName`,
  `${DRIVER_NAME}/EswitchMode`,
  `${DRIVER_NAME}/vfID`,
  `${DRIVER_NAME}/pfPciAddress`,
  `${DRIVER_NAME}/linkType`,
  `${DRIVER_NAME}/rdmaCapable`,
  'k8s.cni.cncf.io/deviceID',
  'resource.kubernetes.io/pcieRoot',
  'resource.kubernetes.io/pciBusID',
  'resource.kubernetes.io/numaNode',
  'dra.net/numaNode',
];

/** Prefix of every generated shadow NAD name; 32 lowercase hex characters of the attachmentID follow. */
export const SHADOW_NAME_PREFIX = 'dra-sriov-';
