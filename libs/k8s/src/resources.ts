/** Where an API resource lives: the group/version/resource triple plus its scope. */
export interface ResourceType {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. "pods". */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export const resourceTypes = {
  pod: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
  node: { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false },
  namespace: { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
  serviceAccount: { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  networkAttachmentDefinition: {
    group: 'k8s.cni.cncf.io',
    version: 'v1',
    resource: 'network-attachment-definitions',
    kind: 'NetworkAttachmentDefinition',
    namespaced: true,
  },
  resourceClaim: { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims', kind: 'ResourceClaim', namespaced: true },
  resourceSlice: { group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false },
  deviceClass: { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', kind: 'DeviceClass', namespaced: false },
  resourceClaimTemplate: {
    group: 'resource.k8s.io',
    version: 'v1',
    resource: 'resourceclaimtemplates',
    kind: 'ResourceClaimTemplate',
    namespaced: true,
  },
  lease: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  event: { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
  customResourceDefinition: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  },
  clusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  clusterRoleBinding: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  validatingWebhookConfiguration: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
  validatingAdmissionPolicy: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
  },
  validatingAdmissionPolicyBinding: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
  },
  deviceAttributes: {
    group: 'sriovnetwork.k8snetworkplumbingwg.io',
    version: 'v1alpha1',
    resource: 'deviceattributes',
    kind: 'DeviceAttributes',
    namespaced: true,
  },
  sriovResourcePolicy: {
    group: 'sriovnetwork.k8snetworkplumbingwg.io',
    version: 'v1alpha1',
    resource: 'sriovresourcepolicies',
    kind: 'SriovResourcePolicy',
    namespaced: true,
  },
  sriovNetwork: { group: 'sriovnetwork.openshift.io', version: 'v1', resource: 'sriovnetworks', kind: 'SriovNetwork', namespaced: true },
  sriovNetworkNodeState: {
    group: 'sriovnetwork.openshift.io',
    version: 'v1',
    resource: 'sriovnetworknodestates',
    kind: 'SriovNetworkNodeState',
    namespaced: true,
  },
  sriovNetworkNodePolicy: {
    group: 'sriovnetwork.openshift.io',
    version: 'v1',
    resource: 'sriovnetworknodepolicies',
    kind: 'SriovNetworkNodePolicy',
    namespaced: true,
  },
} as const satisfies Record<string, ResourceType>;

export interface ObjectLocation {
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** The REST path of a collection (no name) or an object, e.g. /api/v1/namespaces/ns/pods/p. */
export function resourcePath(type: ResourceType, at: ObjectLocation = {}): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = type.namespaced && at.namespace !== undefined ? `/namespaces/${encodeURIComponent(at.namespace)}` : '';
  const name = at.name === undefined ? '' : `/${encodeURIComponent(at.name)}`;
  const sub = at.subresource === undefined ? '' : `/${at.subresource}`;
  return `${base}${scope}/${type.resource}${name}${sub}`;
}
