import { SriovDraError } from '@sriov-dra/contract';
import type { KubeClient, Pod } from '@sriov-dra/k8s';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { isAttached, managedBindingsOf, withPhase, withShadowUIDs } from './binding-records.ts';
import { verifyClaimStillReserved } from './claim-still-reserved.ts';
import { type EnsuredShadow, checkRecordedShadow, ensureShadow } from './ensure-shadow.ts';
import { managedSelectionFor } from './managed-selection.ts';
import { publishPodSelections } from './pod-selections.ts';
import { recordedShadow } from './recorded-shadow.ts';

export interface BindingStore {
  readonly client: KubeClient;
  readonly checkpoint: CheckpointStore;
  /** The node this driver serves: selections are written only to a Pod still bound to it. */
  readonly nodeName: string;
}

/** present: the recorded shadow, exact; missing shadows are created, or adopted after a lost response. */
export type ShadowOutcome = EnsuredShadow['outcome'] | 'present';

export interface ForwardOutcome {
  /** How each attached shadow of the claim was found, in record order. */
  readonly shadows: readonly ShadowOutcome[];
  readonly selectionsWritten: boolean;
  /** Bindings this call moved from Pending to Ready. */
  readonly readied: number;
  /** The Pod as the selection write left it. */
  readonly pod: Pod;
}

// Interfaces are numbered in the Pod's managed order (§6.5), so numeric order reproduces it for the
// generated names; selections already on the Pod keep their place whatever this order says.
const byInterface = (a: ManagedBinding, b: ManagedBinding): number => a.interface.localeCompare(b.interface, 'en', { numeric: true });

/**
 * §8.1 steps 3–5 for a recorded claim, and the whole of its repair (§8.3): every attached binding's shadow
 * ensured from the frozen bytes, the observed UIDs persisted, the Pod's selections and registry merged
 * from all the Pod's recorded claims (the claim's reservation verified again whenever the Pod is re-read),
 * then Ready. Each step reads the current state first, so a first
 * prepare, a kubelet retry, a restart and the repair worker all run this same sequence and converge.
 * A failure leaves the record where it was (Pending stays Pending) for the next attempt to go forward.
 */
export async function runForwardSequence(
  store: BindingStore,
  claimUID: string,
  options: { readonly current?: Pod; readonly signal?: AbortSignal } = {},
): Promise<ForwardOutcome> {
  const { client, checkpoint } = store;
  const record = checkpoint.get(claimUID);
  if (record === undefined) {
    throw new SriovDraError('UnsupportedDeviceState', `claim ${claimUID} has no checkpoint record to bring forward`, {
      object: { kind: 'ResourceClaim', uid: claimUID },
    });
  }
  const bindings = managedBindingsOf(record).filter(isAttached);
  const observed = new Map<string, string>();
  const shadows: ShadowOutcome[] = [];
  try {
    for (const binding of bindings) {
      const desired = recordedShadow(binding);
      if (!desired.ok) throw desired.error;
      if (binding.shadow.uid !== '') {
        const checked = await checkRecordedShadow(client, desired.value, binding.shadow.uid, options.signal);
        if (checked !== 'missing') {
          shadows.push(checked);
          continue;
        }
        // Forgotten durably before the new Create: a crash after it leaves an empty UID, which adoption
        // by identity and content recovers, never a stale UID that would make our own object a conflict.
        await checkpoint.updateClaim(claimUID, (current) => withPhase(withShadowUIDs(current, new Map([[binding.attachmentID, '']])), ['Ready'], 'Pending'));
      }
      const ensured = await ensureShadow(client, desired.value, options.signal);
      shadows.push(ensured.outcome);
      observed.set(binding.attachmentID, ensured.uid);
    }
  } finally {
    // What was observed is persisted even when a later shadow failed: the next attempt then starts
    // from known UIDs instead of adopting by content again.
    if (observed.size > 0) await checkpoint.updateClaim(claimUID, (current) => withShadowUIDs(current, observed));
  }

  const podClaims = checkpoint.claimsOfPod(record.pod.uid);
  const desired = podClaims
    .flatMap(managedBindingsOf)
    .filter((binding) => isAttached(binding) && binding.shadow.uid !== '')
    .sort(byInterface)
    .map((binding) => managedSelectionFor(binding, binding.shadow.uid));
  const released = podClaims.filter((claim) => managedBindingsOf(claim).some((binding) => !isAttached(binding))).map((claim) => claim.claimUID);
  const write = await publishPodSelections(
    client,
    { namespace: record.pod.namespace, name: record.pod.name, uid: record.pod.uid, nodeName: store.nodeName },
    { desired, releasedClaims: released },
    {
      ...(options.current === undefined ? {} : { current: options.current }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      revalidate: (signal) =>
        verifyClaimStillReserved(client, { namespace: record.claimNamespace, name: record.claimName, uid: claimUID }, record.pod.uid, signal),
    },
  );

  const pending = managedBindingsOf(checkpoint.get(claimUID) ?? record).filter((binding) => binding.phase === 'Pending').length;
  if (pending > 0) await checkpoint.updateClaim(claimUID, (current) => withPhase(current, ['Pending'], 'Ready'));
  return { shadows, selectionsWritten: write.written, readied: pending, pod: write.pod };
}
