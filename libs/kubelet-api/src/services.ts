/**
 * Names the kubelet matches during plugin registration. A DRA plugin lists the gRPC services it serves
 * as "<proto package's last element>.<service>" in PluginInfo.supported_versions; the kubelet (v1.36)
 * talks to the first entry it knows, so the newest version comes first.
 */
export const DRA_PLUGIN_TYPE = 'DRAPlugin';

export const DRA_PLUGIN_V1 = 'v1.DRAPlugin';
export const DRA_PLUGIN_V1BETA1 = 'v1beta1.DRAPlugin';
export const DRA_RESOURCE_HEALTH_V1ALPHA1 = 'v1alpha1.DRAResourceHealth';
