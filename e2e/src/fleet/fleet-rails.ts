// The administrator's objects for the whole fleet, through the SR-IOV network operator's API as §14.3 has
// them: two SriovNetworks and two SriovNetworkNodePolicies (one per rail, sharing a resourceName) that
// select every fleet node by label and each rail's PF by PCI address. The node-policy operator turns them
// into one DeviceAttributes per policy and one SriovResourcePolicy per node. IPAM is host-local in one
// directory for all nodes: every node runs on this machine, so their addresses never collide.
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { FLEET_LABEL } from './fleet-release.ts';

const SRIOV_API = 'sriovnetwork.openshift.io/v1';
const MELLANOX = '15b3';

export interface FleetRail {
  readonly network: string;
  readonly policy: string;
  readonly subnet: string;
  /** The rail's PF on every node. */
  readonly pfPciAddress: string;
}

export function fleetRails(pfPciAddresses: readonly [string, string]): readonly FleetRail[] {
  return [
    { network: 'fleet-rail-a', policy: 'fleet-rail-a-policy', subnet: '10.60.0.0/16', pfPciAddress: pfPciAddresses[0] },
    { network: 'fleet-rail-b', policy: 'fleet-rail-b-policy', subnet: '10.61.0.0/16', pfPciAddress: pfPciAddresses[1] },
  ];
}

export async function createFleetRails(
  admin: KubeClient,
  options: { readonly operatorNamespace: string; readonly workloads: string; readonly hostLocalDir: string; readonly rails: readonly FleetRail[] },
): Promise<void> {
  const namespace = options.operatorNamespace;
  for (const rail of options.rails) {
    const ipam = { type: 'host-local', dataDir: options.hostLocalDir, ranges: [[{ subnet: rail.subnet }]] };
    await admin.create(
      resourceTypes.sriovNetwork,
      {
        apiVersion: SRIOV_API,
        kind: 'SriovNetwork',
        metadata: { name: rail.network },
        spec: { resourceName: 'sriov_vfs', networkNamespace: options.workloads, ipam: JSON.stringify(ipam) },
      },
      { namespace },
    );
    await admin.create(
      resourceTypes.sriovNetworkNodePolicy,
      {
        apiVersion: SRIOV_API,
        kind: 'SriovNetworkNodePolicy',
        metadata: { name: rail.policy },
        spec: {
          resourceName: 'sriov_vfs',
          nodeSelector: { [FLEET_LABEL]: 'true' },
          priority: 99,
          numVfs: 8,
          nicSelector: { vendor: MELLANOX, rootDevices: [rail.pfPciAddress] },
          deviceType: 'netdevice',
          linkType: 'eth',
          dra: {
            attributes: {
              'sriovnetwork.openshift.io/sriovNetworkName': { string: rail.network },
              'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: namespace },
            },
          },
        },
      },
      { namespace },
    );
  }
}

/** The attribute a policy change sets; its value tells one change from the next. */
export const REVISION_ATTRIBUTE = 'example.com/revision';

/** One policy change: a custom attribute of the rail's policy set to `value`. */
export async function changeRailPolicy(admin: KubeClient, namespace: string, rail: FleetRail, value: string): Promise<void> {
  await admin.patch(
    resourceTypes.sriovNetworkNodePolicy,
    { namespace, name: rail.policy },
    { spec: { dra: { attributes: { [REVISION_ATTRIBUTE]: { string: value } } } } },
    contentTypes.mergePatch,
  );
}

interface AttributeSet extends KubeObject {
  readonly spec: { readonly attributes: Readonly<Record<string, { readonly string?: string }>> };
}

/** Whether a DeviceAttributes of the operator's carries the attribute at `value`. */
export async function attributesCarry(admin: KubeClient, namespace: string, key: string, value: string): Promise<boolean> {
  const sets = await admin.list<AttributeSet>(resourceTypes.deviceAttributes, { namespace });
  return sets.items.some((set) => set.spec.attributes[key]?.string === value);
}

interface Slice extends KubeObject {
  readonly spec: {
    readonly driver: string;
    readonly nodeName?: string;
    readonly devices?: readonly { readonly attributes?: Readonly<Record<string, { readonly string?: string }>> }[];
  };
}

/** Per node, the values of attribute `key` its driver's ResourceSlices publish. */
export async function publishedValues(admin: KubeClient, key: string): Promise<Map<string, Set<string>>> {
  const slices = await admin.list<Slice>(resourceTypes.resourceSlice);
  const byNode = new Map<string, Set<string>>();
  for (const slice of slices.items) {
    if (slice.spec.driver !== DRIVER_NAME || slice.spec.nodeName === undefined) continue;
    const values = byNode.get(slice.spec.nodeName) ?? new Set<string>();
    for (const device of slice.spec.devices ?? []) {
      const value = device.attributes?.[key]?.string ?? device.attributes?.[`${DRIVER_NAME}/${key}`]?.string;
      if (value !== undefined) values.add(value);
    }
    byNode.set(slice.spec.nodeName, values);
  }
  return byNode;
}
