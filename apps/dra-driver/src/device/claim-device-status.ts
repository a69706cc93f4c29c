import { type KubeClient, contentTypes, resourceTypes } from '@sriov-dra/k8s';
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

/** One `status.devices` entry (resource.k8s.io/v1 AllocatedDeviceStatus), keyed by driver, pool, device and shareID. */
export interface AllocatedDeviceStatus {
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly shareID?: string;
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
 * Reports the prepared devices in the claim's `status.devices`, after a successful prepare. The list is
 * a map keyed by driver/pool/device/shareID that other drivers of the same claim write too, and a
 * strategic merge patch would replace it whole, so it is written by server-side apply under the
 * driver's field manager: the server merges the entries by key, keeps every other driver's, and drops
 * only entries this driver applied before and no longer applies. The apply names the claim's UID, so a
 * claim replaced under the same name is refused instead of written. The write is best effort: a
 * failure is logged and counted and never fails the prepare, which has already changed the host.
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
    try {
      await client.patch(
        resourceTypes.resourceClaim,
        { namespace: claim.namespace, name: claim.name, subresource: 'status' },
        {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaim',
          metadata: { namespace: claim.namespace, name: claim.name, uid: claim.uid },
          status: { devices: deviceStatusEntries(driverName, devices) },
        },
        contentTypes.apply,
        // Forced: entries of this driver are this driver's, whoever wrote them last.
        { fieldManager: driverName, force: true, signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs ?? 5_000)]) },
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
    // The API server drops status.devices entries itself when the claim is deallocated.
    return this.inner.unprepare(claim, signal);
  }
}
