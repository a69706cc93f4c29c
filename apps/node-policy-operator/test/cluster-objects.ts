// Objects the operator tests and benchmarks create on the API server: a node with its SR-IOV inventory,
// and the bodies of SriovNetworkNodePolicies and SriovNetworks.
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';

/** One PF of a node's SriovNetworkNodeState as the config daemon reports it (status.interfaces[]). */
export interface InventoryInterface {
  readonly name: string;
  readonly pciAddress: string;
  readonly vendor?: string;
  readonly deviceID?: string;
  readonly Vfs: readonly { readonly pciAddress: string; readonly vfID: number; readonly vendor?: string; readonly deviceID?: string }[];
}

/** Creates a Node with `labels` and its SriovNetworkNodeState in `namespace` with `interfaces` in its status. */
export async function seedNode(
  client: KubeClient,
  namespace: string,
  name: string,
  labels: Readonly<Record<string, string>>,
  interfaces: readonly InventoryInterface[],
): Promise<void> {
  await client.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  await client.create(
    resourceTypes.sriovNetworkNodeState,
    { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkNodeState', metadata: { name, namespace }, spec: {} },
    { namespace },
  );
  await client.patch(
    resourceTypes.sriovNetworkNodeState,
    { namespace, name, subresource: 'status' },
    { status: { interfaces } },
    'application/merge-patch+json',
  );
}

/** spec.dra.attributes referencing SriovNetwork `namespace/name`, plus `extra` custom attributes. */
export function draReference(namespace: string, name: string, extra: Readonly<Record<string, unknown>> = {}): { attributes: Record<string, unknown> } {
  return {
    attributes: {
      'sriovnetwork.openshift.io/sriovNetworkName': { string: name },
      'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: namespace },
      ...extra,
    },
  };
}

export function nodePolicyBody(namespace: string, name: string, spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetworkNodePolicy', metadata: { name, namespace }, spec };
}

export function sriovNetworkBody(namespace: string, name: string, spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name, namespace }, spec };
}
