// The chart as a fleet's administrator installs it: the driver's and the Multus daemon's DaemonSets select
// every node of the fleet, the operator runs on the first. One rendered DaemonSet serves every simulated
// node, so its host paths are rendered under a placeholder root that each node maps to its own directory,
// as each real node has its own /var/lib/kubelet and /etc/cni/net.d.
import fs from 'node:fs';
import path from 'node:path';
import type { RenderedVolume } from '@sriov-dra/k8s/testing';
import type { SimulatedNode } from '../stack/simulated-node.ts';

/** Where the rendered DaemonSets' host paths are; each node's directory stands in for it. */
export const HOST_ROOT = '/fleet-node';
/** The label every node of the fleet carries: the DaemonSets and the node policies select it. */
export const FLEET_LABEL = 'fleet.sriov-dra.example/member';

/** The node agents' ports in the rendered DaemonSets. */
export const RENDERED_PORTS = { driverHealth: 9441, daemonMetrics: 9442 } as const;

export function fleetValues(options: {
  readonly operatorNamespace: string;
  readonly operatorNode: string;
  readonly operatorHealth: number;
}): Record<string, unknown> {
  const nodeSelector = { [FLEET_LABEL]: 'true' };
  return {
    global: { operatorNamespace: options.operatorNamespace },
    'dra-driver': {
      configurationMode: 'MULTUS',
      multusAutoAttach: true,
      // What a real node's Pod would listen on; each simulated node's gets a port of its own (fleet-node.ts).
      healthcheckPort: RENDERED_PORTS.driverHealth,
      kubeApi: { qps: 100, burst: 200 },
      host: { kubeletDir: `${HOST_ROOT}/var/lib/kubelet`, cdiRoot: `${HOST_ROOT}/var/run/cdi` },
      nodeSelector,
    },
    'multus-live-read-proxy': {
      metricsPort: RENDERED_PORTS.daemonMetrics,
      host: {
        cniBinDir: `${HOST_ROOT}/opt/cni/bin`,
        cniConfDir: `${HOST_ROOT}/etc/cni/net.d`,
        cacheDir: `${HOST_ROOT}/var/lib/cni/multus`,
        socketDir: `${HOST_ROOT}/run/multus`,
        netnsDir: '/var/run/netns',
      },
      nodeSelector,
    },
    'node-policy-operator': {
      replicas: 1,
      healthPort: options.operatorHealth,
      webhook: { enabled: false },
      nodeSelector: { 'kubernetes.io/hostname': options.operatorNode },
    },
  };
}

/** Where a rendered path of the fleet's DaemonSets is on `node`. */
export function nodePath(node: SimulatedNode, rendered: string): string {
  if (rendered === '/sys') return node.sysfsRoot;
  if (rendered === '/dev') return node.devRoot;
  if (rendered === HOST_ROOT || rendered.startsWith(`${HOST_ROOT}/`)) return path.join(node.root, rendered.slice(HOST_ROOT.length));
  return rendered;
}

export function nodeVolumeContent(node: SimulatedNode, configDir?: string): (volume: RenderedVolume) => string | undefined {
  return (volume) => {
    if (volume.configMap !== undefined) return configDir;
    const rendered = volume.hostPath?.path;
    return rendered === undefined ? undefined : nodePath(node, rendered);
  };
}

/** Writes a rendered ConfigMap's files into `dir` with the placeholder root replaced by the node's. */
export function writeNodeConfigMap(configMap: Record<string, unknown>, node: SimulatedNode, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries((configMap as { data?: Record<string, string> }).data ?? {})) {
    fs.writeFileSync(path.join(dir, name), text.replaceAll(`"${HOST_ROOT}/`, `"${node.root}/`));
  }
  return dir;
}
