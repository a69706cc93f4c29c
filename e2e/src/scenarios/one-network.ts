// §14.1: one network for a whole DeviceClass. The NAD reference is in the class's opaque VfConfig, the
// policy advertises one PF's VFs without attributes, and the claim asks for one VF of the class; the
// template uses host-local IPAM on the node. The objects are examples/one-network's files as a user
// applies them; the one node-specific substitution is host-local's lease directory.
import type { KubeClient } from '@sriov-dra/k8s';
import { createManifests, examplePod, exampleObjects, hostLocalNadOnNode } from './example-manifests.ts';

const EXAMPLE = 'one-network';

/** What the example must create: the tests' expectations, written here apart from its files. */
export const ONE_NETWORK = {
  template: 'rail-a-net',
  network: 'ai-workloads-rail-a',
  deviceClass: 'sriov-one-network',
  claimTemplate: 'one-network-vf',
} as const;

export async function createOneNetwork(admin: KubeClient, options: { readonly hostLocalDir: string }): Promise<void> {
  await createManifests(admin, [
    ...exampleObjects(EXAMPLE, 'NetworkAttachmentDefinition').map((nad) => hostLocalNadOnNode(nad, options.hostLocalDir)),
    ...exampleObjects(EXAMPLE, 'SriovResourcePolicy'),
    ...exampleObjects(EXAMPLE, 'DeviceClass'),
    ...exampleObjects(EXAMPLE, 'ResourceClaimTemplate'),
  ]);
}

/** A Pod named `name` with one VF of the class through its claim template, nothing else about networks. */
export function oneNetworkPod(name: string): Record<string, unknown> {
  return examplePod(EXAMPLE, name);
}
