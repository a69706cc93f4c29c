// §14.1: one network for a whole DeviceClass. The NAD reference is in the class's opaque VfConfig, the
// policy advertises one PF's VFs without attributes, and the claim asks for one VF of the class; the
// template uses host-local IPAM on the node.
import { DRIVER_API_VERSION, DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { DUAL_RAIL_LABEL } from '../stack/stack.ts';
import { createClaimTemplate } from './claim-template.ts';

export const ONE_NETWORK = {
  template: 'rail-a-net',
  network: 'ai-workloads-rail-a',
  subnet: '192.0.2.0/24',
  deviceClass: 'sriov-one-network',
  claimTemplate: 'one-network-vf',
} as const;

export async function createOneNetwork(
  admin: KubeClient,
  options: { readonly workloads: string; readonly policyNamespace: string; readonly pf: string; readonly hostLocalDir: string },
): Promise<void> {
  const config = {
    cniVersion: '1.0.0',
    name: ONE_NETWORK.network,
    type: 'sriov',
    ipam: { type: 'host-local', dataDir: options.hostLocalDir, ranges: [[{ subnet: ONE_NETWORK.subnet }]] },
  };
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: ONE_NETWORK.template },
      spec: { config: JSON.stringify(config, null, 2) },
    },
    { namespace: options.workloads },
  );
  await admin.create(
    resourceTypes.sriovResourcePolicy,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'SriovResourcePolicy',
      metadata: { name: 'single-network-policy' },
      spec: {
        nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: DUAL_RAIL_LABEL, operator: 'In', values: ['true'] }] }] },
        configs: [{ resourceFilters: [{ vendors: ['15b3'], pfNames: [options.pf], linkType: 'eth' }] }],
      },
    },
    { namespace: options.policyNamespace },
  );
  await admin.create(resourceTypes.deviceClass, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: ONE_NETWORK.deviceClass },
    spec: {
      selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }],
      config: [
        {
          opaque: {
            driver: DRIVER_NAME,
            parameters: { apiVersion: DRIVER_API_VERSION, kind: 'VfConfig', netAttachDefName: ONE_NETWORK.template, netAttachDefNamespace: options.workloads },
          },
        },
      ],
    },
  });
  await createClaimTemplate(admin, { namespace: options.workloads, name: ONE_NETWORK.claimTemplate }, [
    { name: 'vf', deviceClassName: ONE_NETWORK.deviceClass },
  ]);
}

/** A Pod with one VF of the class through its claim template, nothing else about networks. */
export function oneNetworkPod(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'workload', image: 'registry.example.com/app:1', resources: { claims: [{ name: 'vf' }] } }],
      resourceClaims: [{ name: 'vf', resourceClaimTemplateName: ONE_NETWORK.claimTemplate }],
    },
  };
}
