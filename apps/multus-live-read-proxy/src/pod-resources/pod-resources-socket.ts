/** Where the kubelet serves its PodResources API (upstream Multus's fixed path). */
export const DEFAULT_POD_RESOURCES_SOCKET = '/var/lib/kubelet/pod-resources/kubelet.sock';
