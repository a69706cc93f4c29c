import { mergeManagedSelections } from '@sriov-dra/cni-render';
import type { Pod, ResourceClaim } from '@sriov-dra/k8s';
import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';
import { isAttached, managedBindingsOf } from './binding-records.ts';
import { managedSelectionFor } from './managed-selection.ts';
import { recordedShadow } from './recorded-shadow.ts';
import { type ShadowObject, verifyShadow } from './shadow-verification.ts';

/**
 * Why forward repair must not touch a claim (§8.3). None of these authorizes a release: that takes the
 * kubelet's NodeUnprepareResources, which the record's phase remembers.
 */
export type RepairStop =
  'PodGone' | 'PodReplaced' | 'PodTerminating' | 'PodMoved' | 'ClaimGone' | 'ClaimReplaced' | 'ReservationChanged' | 'AllocationChanged' | 'NodeReplaced';

export interface RepairObservation {
  /** The live Pod, or undefined when NotFound. */
  readonly pod: Pod | undefined;
  /** The live claim, or undefined when NotFound. */
  readonly claim: ResourceClaim | undefined;
  /** Whether the live Node still has the UID the driver started with. */
  readonly nodeUnchanged: boolean;
}

/** The first reason a Pending/Ready claim may not be repaired forward, or undefined when it may. */
export function repairStop(
  record: ClaimRecord,
  observed: RepairObservation,
  context: { readonly nodeName: string; readonly driverName: string },
): RepairStop | undefined {
  if (!observed.nodeUnchanged) return 'NodeReplaced';
  const { pod, claim } = observed;
  if (pod === undefined) return 'PodGone';
  if (pod.metadata.uid !== record.pod.uid) return 'PodReplaced';
  if (pod.metadata.deletionTimestamp !== undefined) return 'PodTerminating';
  if (pod.spec.nodeName !== context.nodeName) return 'PodMoved';
  if (claim === undefined) return 'ClaimGone';
  if (claim.metadata.uid !== record.claimUID) return 'ClaimReplaced';
  const reserved = claim.status?.reservedFor ?? [];
  if (!reserved.some((consumer) => consumer.resource === 'pods' && consumer.uid === record.pod.uid)) return 'ReservationChanged';
  const allocated = (claim.status?.allocation?.devices?.results ?? [])
    .filter((result) => result.driver === context.driverName)
    .map((result) => `${result.pool}/${result.device}`);
  const recorded = record.devices.map((device) => `${device.pool}/${device.device}`);
  if (new Set(allocated).size !== new Set(recorded).size || !recorded.every((device) => allocated.includes(device))) return 'AllocationChanged';
  return undefined;
}

/**
 * Whether the Pod's recorded claims need no forward work at all: every attached binding Ready, its shadow
 * listed under the recorded UID and exactly as recorded with its finalizer, and the Pod's selections and
 * registry already what the merge would write. Pure: the repair worker decides from one listing of the
 * node's shadows and one read of the Pod, and runs the forward sequence only when this says no.
 */
export function isHealthy(records: readonly ClaimRecord[], pod: Pod, shadows: ReadonlyMap<string, ShadowObject>): boolean {
  const bindings = records.flatMap(managedBindingsOf).filter(isAttached);
  for (const binding of bindings) {
    if (binding.phase !== 'Ready') return false;
    const found = shadows.get(`${binding.shadow.namespace}/${binding.shadow.name}`);
    if (found === undefined || found.metadata.uid !== binding.shadow.uid) return false;
    const desired = recordedShadow(binding);
    if (!desired.ok) return false;
    const verdict = verifyShadow(found, desired.value);
    if (!verdict.ok || verdict.value !== 'none') return false;
  }
  const merged = mergeManagedSelections({
    pod: { uid: pod.metadata.uid, namespace: pod.metadata.namespace ?? '', name: pod.metadata.name, annotations: pod.metadata.annotations ?? {} },
    desired: bindings.map((binding) => managedSelectionFor(binding, binding.shadow.uid)),
    releasedClaims: records.filter((record) => managedBindingsOf(record).some((binding) => !isAttached(binding))).map((record) => record.claimUID),
  });
  return merged.ok && !merged.value.changed;
}
