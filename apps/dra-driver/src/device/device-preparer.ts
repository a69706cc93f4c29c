import { SriovDraError } from '@sriov-dra/contract';
import type { Logger } from 'pino';
import type { ClaimRecord, PreparedDevice as CheckpointedDevice } from '../checkpoint/checkpoint-record.ts';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import type { VirtualFunction } from '../discovery/virtual-function.ts';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from '../kubelet/claim-preparer.ts';
import { withPhase } from '../managed/binding-records.ts';
import type { PlannedBinding } from '../managed/planned-binding.ts';
import { type CdiVf, cdiDeviceID, claimCdiDeviceName } from './cdi-spec.ts';
import type { CdiSpecDirectory } from './cdi-spec-directory.ts';
import { type ClaimPlan, type ReservedClaim, planClaimPreparation } from './claim-plan.ts';
import type { DriverBinder } from './driver-binding.ts';
import { managedDeviceRefusal, netdevRefusal } from './managed-device-gate.ts';
import { podCdiAddresses } from './pod-cdi-addresses.ts';
import { readVfioDevice } from './vfio-device.ts';

/** Managed mode (§8.1 step 2): the planned binding of every device of the claim, by device name. */
export interface ManagedDevicePlan {
  /** The claim as the managed path just read it live: its allocation is what the bindings were planned from. */
  readonly claim: ReservedClaim;
  /** Empty for a claim already recorded: a record's bindings are never planned again. */
  readonly bindings: ReadonlyMap<string, PlannedBinding>;
}

export interface DevicePreparerOptions {
  readonly nodeName: string;
  /** The live GET of the claim: allocation and reservation are read fresh on every call (§3.1). */
  readonly readClaim: (namespace: string, name: string, signal: AbortSignal) => Promise<ReservedClaim>;
  /** The VFs discovery currently knows, by DRA device name. */
  readonly vfsByDevice: () => ReadonlyMap<string, VirtualFunction>;
  readonly binder: DriverBinder;
  readonly cdi: CdiSpecDirectory;
  readonly checkpoint: CheckpointStore;
  readonly sysfsRoot: string;
  readonly logger: Logger;
}

/**
 * NodePrepareResources and NodeUnprepareResources for claims whose VFs are configured by VfConfig alone
 * (no managed shadow). The checkpoint is written before the first host change, holding every VF's
 * original driver, so a crash at any later step leaves a record that a repeated prepare completes and
 * unprepare undoes. Both calls converge when repeated: each step reads the current state first.
 */
export class DevicePreparer implements ClaimPreparer {
  private readonly options: DevicePreparerOptions;

  constructor(options: DevicePreparerOptions) {
    this.options = options;
  }

  /**
   * With `managed`, each device's planned binding goes into the first checkpoint record as Pending, so it
   * is durable before any shadow or Pod write. An InfiniBand VF, or one that would not be a kernel
   * netdevice (no driver, a user-space I/O driver, a kept binding without netdev), is refused before
   * anything changes; a binding the VfConfig changes must expose a netdev once it holds, or it is rolled
   * back and refused.
   */
  async prepare(ref: ClaimRef, signal: AbortSignal, managed?: ManagedDevicePlan): Promise<readonly PreparedDevice[]> {
    const { checkpoint, logger } = this.options;
    const claim = managed?.claim ?? (await this.options.readClaim(ref.namespace, ref.name, signal));
    const planned = planClaimPreparation(ref, claim, this.options.nodeName, this.options.vfsByDevice());
    if (!planned.ok) throw planned.error;
    const plan = planned.value;
    let record = checkpoint.get(ref.uid);
    if (record !== undefined && managed !== undefined && record.devices.some((device) => device.managedBinding === undefined)) {
      throw new SriovDraError('UnsupportedDeviceState', 'the claim was prepared before managed attachment was enabled on this node', {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
        remedy: 'enabling managed attachment needs a drained node: delete the workload, let the claim be released, then recreate it',
      });
    }
    if (record === undefined) {
      record = await this.recordOriginals(ref, plan, managed);
      logger.info({ claimUID: ref.uid, podUID: plan.pod.uid, devices: record.devices.length }, 'recorded the claim before preparing its VFs');
    } else if (record.pod.uid !== plan.pod.uid) {
      throw new SriovDraError('ClaimReleaseInProgress', `the claim is still prepared for Pod ${record.pod.namespace}/${record.pod.name} (${record.pod.uid})`, {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
      });
    }

    const cdiVfs: CdiVf[] = [];
    const preparedDrivers = new Map<string, string | null>();
    const object = { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid };
    for (const device of plan.devices) {
      signal.throwIfAborted();
      const pci = device.vf.pciAddress;
      // A managed binding changed by the VfConfig is known to expose a netdev only once it holds.
      const verify =
        managed === undefined
          ? undefined
          : async (driver: string | null): Promise<void> => {
              const refusal = netdevRefusal(pci, driver, await this.options.binder.netdevs(pci), object);
              if (refusal !== undefined) throw refusal;
            };
      const change = await this.options.binder.ensureDriver(pci, device.config.driver, verify);
      preparedDrivers.set(device.device, change.preparedDriver);
      cdiVfs.push({
        device: device.device,
        pciAddress: pci,
        netAttachDefName: device.config.netAttachDefName,
        vhost: device.config.addVhostMount,
        ...(change.preparedDriver === 'vfio-pci' ? { vfio: await readVfioDevice(pci, this.options.sysfsRoot) } : {}),
      });
    }
    await this.options.cdi.writeClaimSpec(ref.uid, cdiVfs);
    const updated = await checkpoint.updateClaim(ref.uid, (current) => ({
      ...current,
      devices: current.devices.map((device) => ({ ...device, preparedDriver: preparedDrivers.get(device.device) ?? device.preparedDriver })),
    }));
    const podSpec = await this.options.cdi.syncPodSpec(plan.pod.uid, podCdiAddresses(checkpoint.claimsOfPod(plan.pod.uid)));
    return (updated ?? record).devices.map((device) => ({
      requestNames: device.requestNames,
      poolName: device.pool,
      deviceName: device.device,
      cdiDeviceIds: podSpec === null ? device.cdiDeviceIDs : [...device.cdiDeviceIDs, podSpec],
    }));
  }

  async unprepare(ref: ClaimRef, signal: AbortSignal): Promise<void> {
    const { checkpoint, logger } = this.options;
    const record = checkpoint.get(ref.uid);
    // Nothing recorded: never prepared here, or already released by an earlier call.
    if (record === undefined) return;
    for (const device of record.devices) {
      signal.throwIfAborted();
      await this.options.binder.restoreDriver(device.pciAddress, device.originalDriver);
    }
    await this.options.cdi.removeClaimSpec(ref.uid);
    await checkpoint.removeClaim(ref.uid);
    // The Pod-wide spec follows the Pod's remaining claims: it goes only with the last one.
    await this.options.cdi.syncPodSpec(record.pod.uid, podCdiAddresses(checkpoint.claimsOfPod(record.pod.uid)));
    logger.info({ claimUID: ref.uid, podUID: record.pod.uid, devices: record.devices.length }, 'released the claim');
  }

  /**
   * The local half of a managed release (§8.4 steps 4–6), once Deleting is durable: the original drivers
   * restored, the claim's CDI spec removed, ReleaseComplete persisted, then the Pod-wide CDI spec rebuilt
   * without this claim. A record already at ReleaseComplete is left as it is: the hardware steps are never
   * repeated. The record itself stays for the API work that follows (finalizer removal).
   */
  async releaseManagedHost(ref: ClaimRef, signal: AbortSignal): Promise<void> {
    const { checkpoint } = this.options;
    const record = checkpoint.get(ref.uid);
    if (record === undefined) return;
    const bindings = record.devices.map((device) => device.managedBinding);
    if (bindings.every((binding) => binding?.phase === 'ReleaseComplete')) return;
    if (bindings.some((binding) => binding?.phase !== 'Deleting')) {
      throw new SriovDraError('UnsupportedDeviceState', 'the claim must be Deleting, durably, before its VFs are released', {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
        remedy: 'persist Deleting for every managed binding of the claim first',
      });
    }
    for (const device of record.devices) {
      signal.throwIfAborted();
      await this.options.binder.restoreDriver(device.pciAddress, device.originalDriver);
    }
    await this.options.cdi.removeClaimSpec(ref.uid);
    await checkpoint.updateClaim(ref.uid, (current) => withPhase(current, ['Deleting'], 'ReleaseComplete'));
    await this.options.cdi.syncPodSpec(record.pod.uid, podCdiAddresses(checkpoint.claimsOfPod(record.pod.uid)));
  }

  /** Removes a released claim's record (§8.4 step 9), after its finalizer obligations are done. */
  async forgetReleasedClaim(ref: ClaimRef): Promise<void> {
    const { checkpoint } = this.options;
    const record = checkpoint.get(ref.uid);
    if (record === undefined) return;
    if (record.devices.some((device) => device.managedBinding !== undefined && device.managedBinding.phase !== 'ReleaseComplete')) {
      throw new SriovDraError('UnsupportedDeviceState', 'only a claim whose managed bindings reached ReleaseComplete can be forgotten', {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
      });
    }
    await checkpoint.removeClaim(ref.uid);
    await this.options.cdi.syncPodSpec(record.pod.uid, podCdiAddresses(checkpoint.claimsOfPod(record.pod.uid)));
  }

  private async recordOriginals(ref: ClaimRef, plan: ClaimPlan, managed: ManagedDevicePlan | undefined): Promise<ClaimRecord> {
    const devices: CheckpointedDevice[] = [];
    const object = { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid };
    for (const device of plan.devices) {
      const original = await this.options.binder.currentDriver(device.vf.pciAddress);
      const binding = managed?.bindings.get(device.device);
      if (managed !== undefined) {
        if (binding === undefined) throw new SriovDraError('InvalidApiObject', `device ${device.device} has no planned managed binding`, { object });
        const netdevs = await this.options.binder.netdevs(device.vf.pciAddress);
        const state = { pciAddress: device.vf.pciAddress, linkType: device.vf.pf.linkType, driver: original, netdevs };
        const refusal = managedDeviceRefusal(state, device.config.driver, object);
        if (refusal !== undefined) throw refusal;
      }
      devices.push({
        pool: device.pool,
        device: device.device,
        requestNames: [...device.requestNames],
        pciAddress: device.vf.pciAddress,
        originalDriver: original,
        // Nothing is changed yet; the binding the VfConfig asks for is recorded once it holds.
        preparedDriver: original,
        cdiDeviceIDs: [cdiDeviceID(claimCdiDeviceName(ref.uid, device.device))],
        ...(binding === undefined ? {} : { managedBinding: { ...binding, phase: 'Pending' as const, shadow: { ...binding.shadow, uid: '' } } }),
      });
    }
    const record: ClaimRecord = { claimUID: ref.uid, claimNamespace: ref.namespace, claimName: ref.name, pod: plan.pod, devices };
    await this.options.checkpoint.upsertClaim(record);
    return record;
  }
}
