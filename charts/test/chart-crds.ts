/** The CustomResourceDefinitions the umbrella chart installs from crds/, by name, sorted: the driver's own. */
export const CHART_CRD_NAMES = ['deviceattributes.sriovnetwork.k8snetworkplumbingwg.io', 'sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io'];

/**
 * The CRDs other projects own (Multus, the SR-IOV network operator), sorted: `node-policy-operator crds apply`
 * creates them, or adds spec.dra to the installed ones; the chart does not carry them.
 */
export const UPSTREAM_OWNED_CRD_NAMES = [
  'network-attachment-definitions.k8s.cni.cncf.io',
  'sriovnetworknodepolicies.sriovnetwork.openshift.io',
  'sriovnetworknodestates.sriovnetwork.openshift.io',
  'sriovnetworks.sriovnetwork.openshift.io',
];
