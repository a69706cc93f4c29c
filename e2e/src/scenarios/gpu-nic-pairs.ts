// §14.2: two GPU/NIC pairs matched by PCIe root, each VF on its rail's subnet through the administrator's
// mapping alone. The objects are the spec's manifest with this node's substitutions: the policy watch
// namespace is the driver's, the PF names and subnets are the fixture's, and each Whereabouts IPAM names
// the node's flat-file configuration (the datastore credentials a node's Whereabouts install provides).
import { DRIVER_API_VERSION, DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { GPU_DRIVER } from '../node/gpu-stand-in.ts';
import { createClaimTemplate } from './claim-template.ts';
import { RAIL_PFS } from '../stack/simulated-node.ts';
import { DUAL_RAIL_LABEL } from '../stack/stack.ts';

export const TEMPLATE_LABEL = 'networking.example.com/template';
export const PAIRS_TEMPLATE = 'gpu-nic-pairs';

/** The two rails: the source template each maps to, its PF and its Whereabouts range. */
export const RAILS = [
  { template: 'rail-a-net', network: 'ai-workloads-rail-a', pf: RAIL_PFS[0].netdev, range: '192.0.2.0/24', start: '192.0.2.10', end: '192.0.2.200' },
  { template: 'rail-b-net', network: 'ai-workloads-rail-b', pf: RAIL_PFS[1].netdev, range: '198.51.100.0/24', start: '198.51.100.10', end: '198.51.100.200' },
] as const;

export type Rail = (typeof RAILS)[number];

/** The rail's CNI configuration: sriov with Whereabouts on the rail subnet; no deviceID, no resourceName. */
export function railConfig(rail: Rail, whereaboutsConfig: string): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: rail.network,
      type: 'sriov',
      ipam: {
        type: 'whereabouts',
        network_name: rail.network,
        range: rail.range,
        range_start: rail.start,
        range_end: rail.end,
        configuration_path: whereaboutsConfig,
      },
    },
    null,
    2,
  );
}

/** The two DeviceClasses of §14.2: eligible VFs and full GPUs, each with a nonempty PCIe root. */
export async function createPcieDeviceClasses(admin: KubeClient): Promise<void> {
  const hasRoot = `"resource.kubernetes.io" in device.attributes && "pcieRoot" in device.attributes["resource.kubernetes.io"] && device.attributes["resource.kubernetes.io"].pcieRoot != ""`;
  const classes = [
    { name: 'sriov-pcie-netdevice', expression: `device.driver == "${DRIVER_NAME}" && ${hasRoot}` },
    {
      name: 'nvidia-gpu-pcie',
      expression: `device.driver == "${GPU_DRIVER}" && "${GPU_DRIVER}" in device.attributes && "type" in device.attributes["${GPU_DRIVER}"] && device.attributes["${GPU_DRIVER}"].type == "gpu" && ${hasRoot}`,
    },
  ];
  for (const { name, expression } of classes) {
    await admin.create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name },
      spec: { selectors: [{ cel: { expression } }] },
    });
  }
}

/** The workload side of §14.2: the claim template with two scoped root constraints. Nothing names a rail. */
export async function createPairsTemplate(admin: KubeClient, namespace: string): Promise<void> {
  const pair = (index: number) => [
    { name: `gpu-${String(index)}`, deviceClassName: 'nvidia-gpu-pcie' },
    { name: `nic-${String(index)}`, deviceClassName: 'sriov-pcie-netdevice' },
  ];
  await createClaimTemplate(
    admin,
    { namespace, name: PAIRS_TEMPLATE },
    [...pair(0), ...pair(1)],
    [
      { requests: ['gpu-0', 'nic-0'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
      { requests: ['gpu-1', 'nic-1'], matchAttribute: 'resource.kubernetes.io/pcieRoot' },
    ],
  );
}

/** The administrator side of §14.2 done by hand: source templates, their attribute sets and the policy mapping each PF to one. */
export async function createDirectRailMapping(
  admin: KubeClient,
  options: { readonly workloads: string; readonly policyNamespace: string; readonly whereaboutsConfig: string },
): Promise<void> {
  for (const rail of RAILS) {
    await admin.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: rail.template },
        spec: { config: railConfig(rail, options.whereaboutsConfig) },
      },
      { namespace: options.workloads },
    );
    await admin.create(
      resourceTypes.deviceAttributes,
      {
        apiVersion: DRIVER_API_VERSION,
        kind: 'DeviceAttributes',
        metadata: { name: `${rail.template.replace(/-net$/, '')}-network-attributes`, labels: { [TEMPLATE_LABEL]: rail.template } },
        spec: { attributes: { [`${DRIVER_NAME}/netAttachDefName`]: { string: rail.template } } },
      },
      { namespace: options.policyNamespace },
    );
  }
  await admin.create(
    resourceTypes.sriovResourcePolicy,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'SriovResourcePolicy',
      metadata: { name: 'dual-rail-netdevice-policy' },
      spec: {
        nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: DUAL_RAIL_LABEL, operator: 'In', values: ['true'] }] }] },
        configs: RAILS.map((rail) => ({
          deviceAttributesSelector: { matchLabels: { [TEMPLATE_LABEL]: rail.template } },
          resourceFilters: [{ vendors: ['15b3'], pfNames: [rail.pf], linkType: 'eth' }],
        })),
      },
    },
    { namespace: options.policyNamespace },
  );
}

/** A Pod of §14.2: the claim template through standard resourceClaims, no networks annotation. */
export function pairsPod(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'gpu-sriov-pairs-demo' } },
    spec: {
      nodeSelector: { [DUAL_RAIL_LABEL]: 'true' },
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'workload',
          image: 'quay.io/schseba/toolbox:latest',
          command: ['/bin/bash', '-c', 'sleep infinity'],
          resources: { claims: [{ name: 'devices' }] },
        },
      ],
      resourceClaims: [{ name: 'devices', resourceClaimTemplateName: PAIRS_TEMPLATE }],
    },
  };
}

/** Waits until the driver's ResourceSlices publish VFs mapped to every rail's template (the policy is in effect). */
export async function waitForPublishedRails(admin: KubeClient): Promise<void> {
  const published = async (): Promise<Set<string>> => {
    const slices = (
      await admin.list<KubeObject & { spec: { driver: string; devices?: { attributes?: Record<string, { string?: string }> }[] } }>(resourceTypes.resourceSlice)
    ).items;
    const templates = slices
      .filter((slice) => slice.spec.driver === DRIVER_NAME)
      .flatMap((slice) => slice.spec.devices ?? [])
      .map((device) => device.attributes?.['netAttachDefName']?.string ?? device.attributes?.[`${DRIVER_NAME}/netAttachDefName`]?.string);
    return new Set(templates.filter((template) => template !== undefined));
  };
  await waitFor(
    'the driver to publish VFs of every rail',
    async () => {
      const templates = await published();
      return RAILS.every((rail) => templates.has(rail.template));
    },
    { timeoutMs: 30_000 },
  );
}

/**
 * §14.2's whole setup on a node: both DeviceClasses, the pairs template and the administrator's direct rail
 * mapping; resolves once the driver publishes VFs for both rails (the policy is in effect).
 */
export async function setUpPairs(
  admin: KubeClient,
  options: { readonly workloads: string; readonly policyNamespace: string; readonly whereaboutsConfig: string },
): Promise<void> {
  await createPcieDeviceClasses(admin);
  await createPairsTemplate(admin, options.workloads);
  await createDirectRailMapping(admin, options);
  await waitForPublishedRails(admin);
}
