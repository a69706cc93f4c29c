import type { ClaimRecord, ManagedBinding, ManagedBindingPhase } from '../checkpoint/checkpoint-record.ts';

/**
 * Reading and advancing the managed bindings a checkpoint record holds (§6.3). A claim's bindings move
 * through the phases together: the forward sequence and the release each act on the whole claim.
 */

export function managedBindingsOf(record: ClaimRecord): ManagedBinding[] {
  return record.devices.flatMap((device) => (device.managedBinding === undefined ? [] : [device.managedBinding]));
}

/** Pending and Ready bindings are wanted on the Pod; Deleting and ReleaseComplete ones are being released. */
export function isAttached(binding: ManagedBinding): boolean {
  return binding.phase === 'Pending' || binding.phase === 'Ready';
}

/** Whether the claim's release has begun: from then on it only moves forward to its end. */
export function isReleasing(record: ClaimRecord): boolean {
  return managedBindingsOf(record).some((binding) => !isAttached(binding));
}

/** The record with every managed binding of `from` moved to `to`; the others as they were. */
export function withPhase(record: ClaimRecord, from: readonly ManagedBindingPhase[], to: ManagedBindingPhase): ClaimRecord {
  return {
    ...record,
    devices: record.devices.map((device) =>
      device.managedBinding === undefined || !from.includes(device.managedBinding.phase)
        ? device
        : { ...device, managedBinding: { ...device.managedBinding, phase: to } },
    ),
  };
}

/** The record with the shadow UIDs observed for some attachments (created or adopted), by attachment ID. */
export function withShadowUIDs(record: ClaimRecord, observed: ReadonlyMap<string, string>): ClaimRecord {
  return {
    ...record,
    devices: record.devices.map((device) => {
      const binding = device.managedBinding;
      const uid = binding === undefined ? undefined : observed.get(binding.attachmentID);
      return binding === undefined || uid === undefined ? device : { ...device, managedBinding: { ...binding, shadow: { ...binding.shadow, uid } } };
    }),
  };
}
