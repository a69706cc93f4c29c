/**
 * Every feature the chart leaves off by default, on: managed networks, DeviceClasses, ServiceMonitors, the
 * crds hook, a policy namespace, a mirror and pull secrets; the webhook's certificate from cert-manager.
 */
export const EVERY_FEATURE = {
  global: { operatorNamespace: 'sriov-network-operator', imageRegistry: 'registry.example', imagePullSecrets: [{ name: 'pull' }] },
  'dra-driver': {
    configurationMode: 'MULTUS',
    multusAutoAttach: true,
    metrics: { serviceMonitor: { enabled: true } },
    deviceClasses: [
      { name: 'sriov-pcie-netdevice', requirePcieRoot: true },
      { name: 'sriov-one-network', vfConfig: { netAttachDefName: 'rail-a-net', netAttachDefNamespace: 'ai-workloads' } },
    ],
  },
  'multus-live-read-proxy': { metrics: { serviceMonitor: { enabled: true } } },
  'node-policy-operator': {
    metrics: { serviceMonitor: { enabled: true } },
    crds: { upstreamOwned: 'apply' },
    webhook: { certificates: { source: 'cert-manager' } },
  },
};

/** EVERY_FEATURE with the webhook's certificate set up at runtime, which renders its own RBAC instead of cert-manager's objects. */
export const EVERY_FEATURE_RUNTIME_CERTIFICATES = {
  ...EVERY_FEATURE,
  'node-policy-operator': { ...EVERY_FEATURE['node-policy-operator'], webhook: { certificates: { source: 'runtime' } } },
};
