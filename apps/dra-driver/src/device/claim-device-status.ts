import { type JsonPatchOp, type KubeClient, type KubeObject, patchGuarded, resourceTypes } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from '../kubelet/claim-preparer.ts';

export interface ClaimDeviceStatusOptions {
  readonly client: KubeClient;
  readonly driverName: string;
  readonly logger: Logger;
  /** Counts a failed write; the prepare it follows still succeeds. */
  readonly onFailure: () => void;
  /** Bound on the status write, so it never eats the kubelet's call budget. */
  readonly timeoutMs?: number;
}

/**
 * One `status.devices` entry (resource.k8s.io/v1 AllocatedDeviceStatus), keyed by driver, pool, device
 * and shareID; a driver may add conditions and data, which are carried through untouched.
 */
export interface AllocatedDeviceStatus {
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly shareID?: string;
  readonly [field: string]: unknown;
}

interface ClaimWithDeviceStatus extends KubeObject {
  readonly status?: { readonly devices?: readonly AllocatedDeviceStatus[] };
}

const keyOf = (entry: AllocatedDeviceStatus): string => JSON.stringify([entry.driver, entry.pool, entry.device, entry.shareID ?? '']);

/**
 * The claim's `status.devices` with exactly `ours` as this driver's entries: other drivers' entries stay
 * where they are, an entry of ours that is already there keeps whatever it carries, a stale entry of ours
 * goes. Undefined when the list already is that.
 */
export function desiredDeviceStatus(
  current: readonly AllocatedDeviceStatus[],
  driverName: string,
  ours: readonly AllocatedDeviceStatus[],
): AllocatedDeviceStatus[] | undefined {
  const wanted = new Set(ours.map(keyOf));
  const kept = current.filter((entry) => entry.driver !== driverName || wanted.has(keyOf(entry)));
  const present = new Set(kept.map(keyOf));
  const next = [...kept, ...ours.filter((entry) => !present.has(keyOf(entry)))];
  return next.length === current.length && next.every((entry, index) => entry === current[index]) ? undefined : next;
}

export function deviceStatusEntries(driverName: string, devices: readonly PreparedDevice[]): AllocatedDeviceStatus[] {
  return devices.map((device) => ({
    driver: driverName,
    pool: device.poolName,
    device: device.deviceName,
    ...(device.shareId === undefined ? {} : { shareID: device.shareId }),
  }));
}

/**
 * Reports the prepared devices in the claim's `status.devices`, after a successful prepare. Other drivers
 * of the same claim write the same list, so it is read live and patched with `test` preconditions on UID
 * and resourceVersion, recomputed after a conflict. Not server-side apply, although the list is keyed:
 * the v1.36 API server re-encodes `status.allocation` on apply, with the keys of opaque config
 * parameters reordered, and refuses the write as a change of the immutable allocation. Not a merge or
 * strategic patch either: the list has no patch strategy, so those replace it whole and need the same
 * read and precondition anyway.
 * The write is best effort: a failure is logged and counted and never fails the prepare, which has
 * already changed the host.
 */
export class ClaimDeviceStatusWriter implements ClaimPreparer {
  private readonly inner: ClaimPreparer;
  private readonly options: ClaimDeviceStatusOptions;

  constructor(inner: ClaimPreparer, options: ClaimDeviceStatusOptions) {
    this.inner = inner;
    this.options = options;
  }

  async prepare(claim: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]> {
    const devices = await this.inner.prepare(claim, signal);
    const { client, driverName, logger } = this.options;
    const ours = deviceStatusEntries(driverName, devices);
    // The GET and the PATCH both go to the status subresource.
    const at = { namespace: claim.namespace, name: claim.name, uid: claim.uid, subresource: 'status' };
    try {
      await patchGuarded<ClaimWithDeviceStatus>(
        client,
        resourceTypes.resourceClaim,
        at,
        (live): JsonPatchOp[] => {
          const next = desiredDeviceStatus(live.status?.devices ?? [], driverName, ours);
          return next === undefined ? [] : [{ op: 'add', path: '/status/devices', value: next }];
        },
        { signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? 5_000)]) },
      );
    } catch (error) {
      this.options.onFailure();
      logger.warn(
        { err: error, claimUID: claim.uid, claim: `${claim.namespace}/${claim.name}` },
        'could not write the claim status.devices; the prepare stands',
      );
    }
    return devices;
  }

  unprepare(claim: ClaimRef, signal: AbortSignal): Promise<void> {
    // The API server drops the status.devices entries itself when the claim is deallocated.
    return this.inner.unprepare(claim, signal);
  }
}
