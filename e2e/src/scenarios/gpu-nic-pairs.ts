// §14.2: two GPU/NIC pairs matched by PCIe root, each VF on its rail's subnet through the administrator's
// mapping alone. The objects are examples/gpu-nic-pairs' files as a user applies them; the one node-specific
// substitution is each Whereabouts IPAM naming the node's configuration file (the datastore credentials a
// node's Whereabouts install provides).
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { RAIL_PFS } from '../stack/simulated-node.ts';
import { createManifests, examplePod, exampleObjects, nadOnNode } from './example-manifests.ts';

const EXAMPLE = 'gpu-nic-pairs';

/**
 * What the two rails must come out as: the source template each PF maps to, and its Whereabouts range.
 * The tests' expectations, written here apart from the example's files so that a change to either shows.
 */
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
  await createManifests(admin, exampleObjects(EXAMPLE, 'DeviceClass'));
}

/** The workload side of §14.2: the claim template with two scoped root constraints. Nothing names a rail. */
export async function createPairsTemplate(admin: KubeClient): Promise<void> {
  await createManifests(admin, exampleObjects(EXAMPLE, 'ResourceClaimTemplate'));
}

/** The administrator side of §14.2 done by hand: source templates, their attribute sets and the policy mapping each PF to one. */
export async function createDirectRailMapping(admin: KubeClient, options: { readonly whereaboutsConfig: string }): Promise<void> {
  await createManifests(admin, [
    ...exampleObjects(EXAMPLE, 'NetworkAttachmentDefinition').map((nad) => nadOnNode(nad, options.whereaboutsConfig)),
    ...exampleObjects(EXAMPLE, 'DeviceAttributes'),
    ...exampleObjects(EXAMPLE, 'SriovResourcePolicy'),
  ]);
}

/** A Pod of §14.2 named `name`: the claim template through standard resourceClaims, no networks annotation. */
export function pairsPod(name: string): Record<string, unknown> {
  return examplePod(EXAMPLE, name);
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
export async function setUpPairs(admin: KubeClient, options: { readonly whereaboutsConfig: string }): Promise<void> {
  await createPcieDeviceClasses(admin);
  await createPairsTemplate(admin);
  await createDirectRailMapping(admin, options);
  await waitForPublishedRails(admin);
}
