// The stack installed the way an administrator installs it: the CRDs other projects own from
// `node-policy-operator crds apply` (the same code), the umbrella chart rendered by Helm itself with values for
// this node, its own CRDs (and Whereabouts') established first as `helm install` does, then every rendered
// object created on the API server as it is.
import fs from 'node:fs';
import path from 'node:path';
import type { KubeClient } from '@sriov-dra/k8s';
import { applyUpstreamOwnedCrds, crdsApplySucceeded, formatCrdsReport } from '@sriov-dra/node-policy-operator';
import { UMBRELLA_CHART_DIR, cniPlugins, createNamespace, createRendered, installCrdObjects, readCrds, renderChart } from '@sriov-dra/k8s/testing';
import type { SimulatedNode } from './simulated-node.ts';

export interface ReleasePorts {
  readonly driverHealth: number;
  readonly daemonMetrics: number;
  readonly operatorHealth: number;
  readonly webhook: number;
}

export interface ChartRelease {
  readonly namespace: string;
  /** The SR-IOV network operator's namespace: node policies, SriovNetworks and the driver's policies. */
  readonly operatorNamespace: string;
  readonly objects: readonly Record<string, unknown>[];
  /** The rendered object of `kind` named `name`; throws when the chart rendered none. */
  object(kind: string, name: string): Record<string, unknown>;
}

/**
 * The values an administrator would set for this node, managed shadow networks on: every workload placed
 * on it alone (on a target cluster, nothing of the stack's may land on a real node), and the webhook when
 * the API server can call it.
 */
export function releaseValues(
  node: SimulatedNode,
  operatorNamespace: string,
  ports: ReleasePorts,
  options: { readonly webhook: boolean },
): Record<string, unknown> {
  const nodeSelector = { 'kubernetes.io/hostname': node.name };
  return {
    global: { operatorNamespace },
    'dra-driver': {
      configurationMode: 'MULTUS',
      multusAutoAttach: true,
      healthcheckPort: ports.driverHealth,
      // The stack's own Pods churn quickly; the default client rate is for a quiet production node.
      kubeApi: { qps: 100, burst: 200 },
      host: { kubeletDir: node.kubeletDir, cdiRoot: node.cdiRoot },
      nodeSelector,
    },
    'multus-live-read-proxy': { metricsPort: ports.daemonMetrics, host: node.cni, nodeSelector },
    'node-policy-operator': {
      replicas: 1,
      healthPort: ports.operatorHealth,
      webhook: { enabled: options.webhook, replicas: 1, port: ports.webhook },
      nodeSelector,
    },
  };
}

export async function installRelease(
  client: KubeClient,
  options: { readonly namespace: string; readonly operatorNamespace: string; readonly values: Record<string, unknown> },
): Promise<ChartRelease> {
  const upstreamOwned = await applyUpstreamOwnedCrds(client, { dryRun: false, namespace: 'default' });
  if (!crdsApplySucceeded(upstreamOwned)) throw new Error(`crds apply failed:\n${formatCrdsReport(upstreamOwned).join('\n')}`);
  const crds = [...readCrds(), ...readCrds(cniPlugins().whereaboutsCrdsDir)];
  await installCrdObjects(client, crds);
  for (const namespace of new Set([options.namespace, options.operatorNamespace])) await createNamespace(client, namespace);
  const objects = renderChart(UMBRELLA_CHART_DIR, { namespace: options.namespace, values: options.values });
  await createRendered(client, objects, options.namespace);
  return {
    namespace: options.namespace,
    operatorNamespace: options.operatorNamespace,
    objects,
    object: (kind, name) => {
      const found = objects.find((object) => object['kind'] === kind && (object['metadata'] as { name?: string } | undefined)?.name === name);
      if (found === undefined) throw new Error(`the chart rendered no ${kind} ${name}`);
      return found;
    },
  };
}

/** Writes a rendered ConfigMap's data into `dir`, where a Pod would see the volume's files. */
export function writeConfigMapVolume(configMap: Record<string, unknown>, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries((configMap as { data?: Record<string, string> }).data ?? {})) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}
