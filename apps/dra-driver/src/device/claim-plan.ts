import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import type { PodIdentity } from '../checkpoint/checkpoint-record.ts';
import { type AllocatedClaim, type DeviceAllocationResult, effectiveVfConfigs } from '../config/claim-vf-configs.ts';
import type { EffectiveVfConfig } from '../config/vf-config-layering.ts';
import type { VirtualFunction } from '../discovery/virtual-function.ts';

/** The claim as NodePrepareResources names it. */
export interface ClaimIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** An allocated claim as read live, with the consumers it is reserved for. */
export interface ReservedClaim extends AllocatedClaim {
  readonly status?: AllocatedClaim['status'] & {
    readonly reservedFor?: readonly { readonly apiGroup?: string; readonly resource: string; readonly name: string; readonly uid: string }[];
  };
}

/** One VF to prepare: the allocation result, the VF behind it, and the configuration it gets. */
export interface PlannedDevice {
  readonly pool: string;
  readonly device: string;
  /** Every request of the claim this device serves (a device can serve several). */
  readonly requestNames: readonly string[];
  readonly vf: VirtualFunction;
  readonly config: EffectiveVfConfig;
}

export interface ClaimPlan {
  readonly pod: PodIdentity;
  readonly devices: readonly PlannedDevice[];
}

/**
 * Decides what NodePrepareResources does for one claim before anything on the host changes: the claim
 * read live must be the one the kubelet named and be allocated; it must be reserved for exactly one Pod
 * (the Pod-level CDI spec and the checkpoint key their records by it); every result of this driver must
 * be in this node's pool and name a VF discovery knows. Configuration is layered per result (§5.2).
 */
export function planClaimPreparation(
  requested: ClaimIdentity,
  claim: ReservedClaim,
  nodeName: string,
  vfsByDevice: ReadonlyMap<string, VirtualFunction>,
): Result<ClaimPlan> {
  const object: ObjectRef = { kind: 'ResourceClaim', namespace: requested.namespace, name: requested.name, uid: requested.uid };
  if (claim.metadata.uid !== requested.uid) {
    return fail('ObjectReplaced', `the kubelet asked for UID ${requested.uid}, the API server has UID ${claim.metadata.uid}`, { object });
  }
  if (claim.status?.allocation === undefined) {
    return fail('InvalidApiObject', 'the claim is not allocated', {
      object: { ...object, field: 'status.allocation' },
      remedy: 'the kubelet retries once the scheduler has allocated the claim',
    });
  }
  const pods = (claim.status.reservedFor ?? []).filter((consumer) => (consumer.apiGroup ?? '') === '' && consumer.resource === 'pods');
  const [pod] = pods;
  if (pod === undefined || pods.length !== 1 || (claim.status.reservedFor ?? []).length !== 1) {
    return fail('InvalidClaimReservation', `status.reservedFor holds ${(claim.status.reservedFor ?? []).length} consumers, ${pods.length} of them Pods`, {
      object,
      remedy: 'a claim of this driver is prepared for exactly one Pod; do not share it between Pods or other consumers',
    });
  }
  const configs = effectiveVfConfigs(claim);
  if (!configs.ok) return configs;

  // A device can be the result of several requests; the kubelet needs it once, with all of them.
  const byDevice = new Map<string, { result: DeviceAllocationResult; requestNames: string[]; config: EffectiveVfConfig }>();
  for (const { result, config } of configs.value) {
    const at: ObjectRef = { ...object, field: `status.allocation.devices.results[${result.request}]` };
    if (result.pool !== nodeName)
      return fail('DeviceNotEligible', `device ${result.pool}/${result.device} is in another node's pool, not ${nodeName}`, { object: at });
    const seen = byDevice.get(result.device);
    if (seen === undefined) {
      byDevice.set(result.device, { result, requestNames: [result.request], config });
      continue;
    }
    if (JSON.stringify(seen.config) !== JSON.stringify(config)) {
      return fail(
        'ConflictingDeviceRequirements',
        `requests ${seen.requestNames.join(', ')} and ${result.request} configure device ${result.device} differently`,
        {
          object: at,
        },
      );
    }
    seen.requestNames.push(result.request);
  }
  const devices: PlannedDevice[] = [];
  for (const [device, { result, requestNames, config }] of byDevice) {
    const vf = vfsByDevice.get(device);
    if (vf === undefined) {
      return fail('DeviceNotEligible', `device ${result.pool}/${device} is not a VF discovered on this node`, {
        object: { ...object, field: `status.allocation.devices.results[${result.request}]` },
      });
    }
    devices.push({ pool: result.pool, device, requestNames, vf, config });
  }
  return ok({ pod: { uid: pod.uid, namespace: requested.namespace, name: pod.name }, devices });
}
