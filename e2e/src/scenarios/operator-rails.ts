// §14.3: the same two rails through the SR-IOV network operator's own objects — two SriovNetworks and two
// SriovNetworkNodePolicies sharing one resourceName, each policy's spec.dra naming its network — from
// which the node-policy operator generates the source NADs and the driver's DeviceAttributes and
// SriovResourcePolicy. The SriovNetworks and node policies are examples/operator-rails' files as a user
// applies them, each Whereabouts IPAM naming the node's configuration file (the one node-specific
// substitution). The node's SriovNetworkNodeState is written as the SR-IOV config daemon reports the
// simulated inventory.
import { type KubeClient, type KubeObject, type ResourceType, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import type { SimulatedNode } from '../stack/simulated-node.ts';
import { createManifests, exampleObjects, sriovNetworkOnNode } from './example-manifests.ts';
import { RAILS } from './gpu-nic-pairs.ts';

const EXAMPLE = 'operator-rails';

const SRIOV_API = 'sriovnetwork.openshift.io/v1';
const MELLANOX = '15b3';

interface WithConditions extends KubeObject {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly reason?: string }[] };
}

/** The node's SriovNetworkNodeState, its status.interfaces as the config daemon reports the inventory. */
export async function reportNodeState(admin: KubeClient, namespace: string, node: SimulatedNode): Promise<void> {
  await admin.create(
    resourceTypes.sriovNetworkNodeState,
    { apiVersion: SRIOV_API, kind: 'SriovNetworkNodeState', metadata: { name: node.name }, spec: {} },
    { namespace },
  );
  const interfaces = node.pfs.map((pf) => ({
    name: pf.netdev,
    pciAddress: pf.pciAddress,
    vendor: MELLANOX,
    deviceID: '101b',
    numVfs: pf.vfs.length,
    totalvfs: pf.vfs.length,
    linkType: 'ETH',
    Vfs: pf.vfs.map((vf, vfID) => ({ pciAddress: vf.pciAddress, vfID, vendor: MELLANOX, deviceID: '101c', name: vf.netdev, driver: vf.driver })),
  }));
  await admin.patch(
    resourceTypes.sriovNetworkNodeState,
    { namespace, name: node.name, subresource: 'status' },
    { status: { interfaces } },
    contentTypes.mergePatch,
  );
}

/** §14.3's SriovNetworks and node policies, in the SR-IOV network operator's namespace. */
export async function createOperatorRails(admin: KubeClient, options: { readonly whereaboutsConfig: string }): Promise<void> {
  await createManifests(admin, [
    ...exampleObjects(EXAMPLE, 'SriovNetwork').map((network) => sriovNetworkOnNode(network, options.whereaboutsConfig)),
    ...exampleObjects(EXAMPLE, 'SriovNetworkNodePolicy'),
  ]);
}

/** Waits for what §14.3 says to verify before starting the workload: both policies' DRAConfigurationReady and both networks' Ready. */
export async function waitOperatorRailsReady(admin: KubeClient, namespace: string, describe: () => string): Promise<void> {
  const condition = async (type: ResourceType, name: string, conditionType: string) =>
    (await admin.get<WithConditions>(type, { namespace, name })).status?.conditions?.find((candidate) => candidate.type === conditionType)?.status;
  for (const rail of RAILS) {
    await waitFor(
      `${rail.template}: the policy's DRAConfigurationReady and the network's Ready`,
      async () =>
        (await condition(resourceTypes.sriovNetworkNodePolicy, rail.template.replace(/-net$/, '-policy'), 'DRAConfigurationReady')) === 'True' &&
        (await condition(resourceTypes.sriovNetwork, rail.template, 'Ready')) === 'True',
      { timeoutMs: 60_000, describe },
    );
  }
}

/**
 * Tries to store `spec.dra` on the operator's `default` policy (DRABlockOnDefaultPolicy) and returns the
 * API server's message, or `stored` when nothing refused it.
 */
export function defaultPolicyRefusal(admin: KubeClient, namespace: string, rail: { readonly pf: string; readonly template: string }): Promise<string> {
  return admin
    .create(
      resourceTypes.sriovNetworkNodePolicy,
      {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetworkNodePolicy',
        metadata: { name: 'default' },
        spec: {
          resourceName: 'sriov_vfs',
          nodeSelector: {},
          numVfs: 8,
          nicSelector: { pfNames: [rail.pf] },
          dra: {
            attributes: {
              'sriovnetwork.openshift.io/sriovNetworkName': { string: rail.template },
              'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: namespace },
            },
          },
        },
      },
      { namespace },
    )
    .then(
      () => 'stored',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
}
