/** The CustomResourceDefinitions the umbrella chart installs from crds/, by name, sorted. */
export const CHART_CRD_NAMES = [
  'deviceattributes.sriovnetwork.k8snetworkplumbingwg.io',
  'network-attachment-definitions.k8s.cni.cncf.io',
  'sriovnetworknodepolicies.sriovnetwork.openshift.io',
  'sriovnetworknodestates.sriovnetwork.openshift.io',
  'sriovnetworks.sriovnetwork.openshift.io',
  'sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io',
];
