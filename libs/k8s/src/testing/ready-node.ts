import { type KubeClient, type KubeObject, contentTypes } from '../client.ts';
import { resourceTypes } from '../resources.ts';

/**
 * A Node object the scheduler will place Pods on, standing in for a node whose kubelet is not running:
 * created with the given labels, then given capacity and a Ready condition through the status subresource.
 */
export async function createReadyNode(client: KubeClient, name: string, labels: Readonly<Record<string, string>> = {}): Promise<KubeObject> {
  const node = await client.create(resourceTypes.node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  });
  const now = new Date().toISOString();
  await client.patch(
    resourceTypes.node,
    { name, subresource: 'status' },
    {
      status: {
        capacity: { cpu: '8', memory: '16Gi', pods: '110' },
        allocatable: { cpu: '8', memory: '16Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated', lastHeartbeatTime: now, lastTransitionTime: now }],
      },
    },
    contentTypes.mergePatch,
  );
  return node;
}
