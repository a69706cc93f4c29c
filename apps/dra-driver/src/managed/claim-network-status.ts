import { jsonEqualIgnoringKeyOrder } from '@sriov-dra/contract';
import { type JsonPatchOp, type KubeClient, type KubeObject, type ObjectIdentity, type ObjectLocation, patchGuarded, resourceTypes } from '@sriov-dra/k8s';
import { z } from 'zod';
import type { AllocatedDeviceStatus } from '../device/claim-device-status.ts';
import { addressWithPrefix } from './ipam-prefix.ts';

/** The Multus network-status annotation the Pod carries after CNI ADD (what Multus wrote, trusted for nothing). */
export const NETWORK_STATUS_ANNOTATION = 'k8s.v1.cni.cncf.io/network-status';

const networkStatusSchema = z.array(
  z.looseObject({
    name: z.string(),
    interface: z.string().optional(),
    ips: z.array(z.string()).optional(),
    mac: z.string().optional(),
  }),
);

/** A managed device and the shadow its binding owns: the key between Multus's report and the claim's status. */
export interface ManagedDevice {
  readonly pool: string;
  readonly device: string;
  readonly shadow: { readonly namespace: string; readonly name: string };
  /** The shadow's frozen CNI configuration: its IPAM tells each reported address's prefix. */
  readonly renderedConfig: string;
}

/** AllocatedDeviceStatus limits of resource.k8s.io/v1 that the API server enforces. */
const MAX_IPS = 16;
const MAX_INTERFACE_NAME = 256;
const MAX_HARDWARE_ADDRESS = 128;

/**
 * The `status.devices` entries (KEP-4817) this driver writes for its managed devices once Multus has
 * attached them: interface name, addresses and MAC from the Pod's network-status entry of the device's
 * shadow (each address with the prefix of the shadow's IPAM, ipam-prefix.ts), with Ready and
 * NetworkReady conditions. A device Multus has not reported yet gets no entry (nothing is claimed before
 * it is true); an unreadable annotation gives none. Diagnostic only (§6.4): nothing waits on it.
 */
export function networkStatusEntries(
  driverName: string,
  networkStatus: string | undefined,
  devices: readonly ManagedDevice[],
  now: Date,
): AllocatedDeviceStatus[] {
  if (networkStatus === undefined) return [];
  let parsed: z.infer<typeof networkStatusSchema>;
  try {
    const result = networkStatusSchema.safeParse(JSON.parse(networkStatus));
    if (!result.success) return [];
    parsed = result.data;
  } catch {
    return [];
  }
  const byName = new Map(parsed.map((entry) => [entry.name, entry]));
  const at = `${now.toISOString().slice(0, 19)}Z`;
  return devices.flatMap((device) => {
    const reported = byName.get(`${device.shadow.namespace}/${device.shadow.name}`);
    if (reported === undefined) return [];
    // Multus reports bare addresses; networkData wants CIDRs, the prefix from the shadow's IPAM.
    const ips = (reported.ips ?? []).flatMap((address) => {
      const cidr = addressWithPrefix(address, device.renderedConfig);
      return cidr === undefined ? [] : [cidr];
    });
    const networkData = {
      ...(reported.interface === undefined || reported.interface === '' || reported.interface.length > MAX_INTERFACE_NAME
        ? {}
        : { interfaceName: reported.interface }),
      ...(ips.length === 0 ? {} : { ips: ips.slice(0, MAX_IPS) }),
      ...(reported.mac === undefined || reported.mac === '' || reported.mac.length > MAX_HARDWARE_ADDRESS ? {} : { hardwareAddress: reported.mac }),
    };
    const message = `attached by Multus through ${device.shadow.namespace}/${device.shadow.name}`;
    return [
      {
        driver: driverName,
        pool: device.pool,
        device: device.device,
        conditions: ['Ready', 'NetworkReady'].map((type) => ({ type, status: 'True', reason: 'MultusAttached', message, lastTransitionTime: at })),
        networkData,
      },
    ];
  });
}

const keyOf = (entry: AllocatedDeviceStatus): string => JSON.stringify([entry.driver, entry.pool, entry.device, entry.shareID ?? '']);

/**
 * The claim's status.devices with `reports` written over this driver's entries of the same devices
 * (their conditions and networkData replaced, a lastTransitionTime kept while the condition holds) and
 * every other entry — other drivers' above all — untouched. Undefined when nothing would change.
 */
export function withNetworkStatus(current: readonly AllocatedDeviceStatus[], reports: readonly AllocatedDeviceStatus[]): AllocatedDeviceStatus[] | undefined {
  const byKey = new Map(reports.map((report) => [keyOf(report), report]));
  const placed = new Set<string>();
  const next = current.map((entry) => {
    const report = byKey.get(keyOf(entry));
    if (report === undefined) return entry;
    placed.add(keyOf(entry));
    return merged(entry, report);
  });
  for (const report of reports) if (!placed.has(keyOf(report))) next.push(report);
  return jsonEqualIgnoringKeyOrder(next, current) ? undefined : next;
}

interface StatusCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

function merged(entry: AllocatedDeviceStatus, report: AllocatedDeviceStatus): AllocatedDeviceStatus {
  const previous = new Map(((entry['conditions'] ?? []) as StatusCondition[]).map((condition) => [condition.type, condition]));
  const conditions = (report['conditions'] as StatusCondition[]).map((condition) => {
    const old = previous.get(condition.type);
    return old !== undefined && old.status === condition.status ? { ...condition, lastTransitionTime: old.lastTransitionTime } : condition;
  });
  return { ...entry, conditions, networkData: report['networkData'] };
}

/**
 * Writes the reports into the claim's status.devices (status subresource, UID and resourceVersion tested,
 * recomputed on a conflict with the other drivers writing the same list). Returns whether anything was
 * written. Errors are the caller's to log and count: this status is never a connectivity barrier.
 */
export async function writeClaimNetworkStatus(
  client: KubeClient,
  claim: { readonly namespace: string; readonly name: string; readonly uid: string },
  reports: readonly AllocatedDeviceStatus[],
  signal?: AbortSignal,
  /** The claim as the caller just read it: the first patch is tested against it instead of a fresh read. */
  current?: KubeObject & { status?: { devices?: readonly AllocatedDeviceStatus[] } },
): Promise<boolean> {
  if (reports.length === 0) return false;
  // The GET and the PATCH both go to the status subresource.
  const at: ObjectIdentity & ObjectLocation = { ...claim, subresource: 'status' };
  const result = await patchGuarded<KubeObject & { status?: { devices?: readonly AllocatedDeviceStatus[] } }>(
    client,
    resourceTypes.resourceClaim,
    at,
    (live): JsonPatchOp[] => {
      const next = withNetworkStatus(live.status?.devices ?? [], reports);
      return next === undefined ? [] : [{ op: 'add', path: '/status/devices', value: next }];
    },
    { signal, ...(current === undefined ? {} : { current }) },
  );
  return result.changed;
}
