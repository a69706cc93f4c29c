import { type DeviceAttributeValue, SriovDraError } from '@sriov-dra/contract';
import { type Pod, type ResourceClaim, readResourceClaim } from '@sriov-dra/k8s';
import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';
import type { DevicePreparer } from '../device/device-preparer.ts';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from '../kubelet/claim-preparer.ts';
import type { KeyedLocks } from '../kubelet/keyed-locks.ts';
import { isReleasing, managedBindingsOf } from './binding-records.ts';
import { type BindingStore, type ForwardOutcome, runForwardSequence } from './forward-sequence.ts';
import { kubeConsumerReader } from './kube-consumer-reader.ts';
import { planClaimBindings } from './pod-binding-plan.ts';
import { type ReleaseOutcome, runReleaseSequence } from './release-sequence.ts';
import type { ResolvePurpose } from './consumer-pod.ts';
import { recheckConsumer } from './consumer-recheck.ts';
import { type ConsumerReader, type ResolvedConsumer, resolvePodForClaim } from './resolve-pod-for-claim.ts';

export interface ManagedPreparerOptions extends BindingStore {
  readonly node: { readonly name: string; readonly uid: string };
  readonly driverName: string;
  readonly devices: DevicePreparer;
  /** The devices of the last ResourceSlice publication, with the attributes the scheduler saw. */
  eligible(signal: AbortSignal): Promise<ReadonlyMap<string, { readonly attributes: Readonly<Record<string, DeviceAttributeValue>> }>>;
  /** The VF behind a device name, from discovery. */
  pciOf(device: string): string | undefined;
  /** This driver's Node as a watch sees it (NodeWatch); without one, each prepare reads it. */
  readonly watchedNode?: (signal?: AbortSignal) => Promise<unknown>;
  /** The per-Pod serialization of managed work; shared with the repair worker. */
  readonly podLocks: KeyedLocks;
  /** Observers of each completed sequence, for logs, Events and metrics. */
  readonly onPrepared?: (ref: ClaimRef, outcome: ForwardOutcome) => void;
  readonly onReleased?: (ref: ClaimRef, outcome: ReleaseOutcome) => void;
  readonly onFailure?: (operation: 'prepare' | 'unprepare', ref: ClaimRef, error: unknown) => void;
}

/** What a prepare verified about its claim, with the order of the reads it came from. */
interface Resolution {
  readonly claim: ResourceClaim;
  readonly consumer: ResolvedConsumer;
  readonly eligible: ReadonlyMap<string, { readonly attributes: Readonly<Record<string, DeviceAttributeValue>> }>;
  /** Sequence number of the reads: a Pod this preparer wrote later is newer than the Pod read here. */
  readonly resolvedAt: number;
}

function releaseInProgress(ref: ClaimRef, record: ClaimRecord): SriovDraError {
  return new SriovDraError(
    'ClaimReleaseInProgress',
    `the claim is still being released from Pod ${record.pod.namespace}/${record.pod.name} (${record.pod.uid})`,
    {
      object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
      remedy: 'the kubelet retries the prepare; it succeeds once the earlier Pod’s release has finished',
    },
  );
}

/**
 * NodePrepareResources and NodeUnprepareResources with managed attachment on (--multus-auto-attach, §8):
 * the claim read live and its Pod resolved and verified (§6.1); under the Pod's lock — taken inside the
 * kubelet runtime's claim lock, never the other way round — a new claim's bindings are planned over all
 * the Pod's claims and recorded Pending with the hardware changes, then the forward sequence creates the
 * shadows and hands the selections to the Pod. A recorded claim is never planned again: its retry runs
 * the same forward sequence from the frozen record. A claim recorded without managed bindings (prepared
 * before the mode was turned on) is still released the way it was prepared.
 */
export class ManagedPreparer implements ClaimPreparer {
  readonly #options: ManagedPreparerOptions;
  readonly #podLocks: KeyedLocks;
  /**
   * Each Pod as this preparer last wrote it, with the order of that write. A claim resolved before
   * another claim of the same Pod wrote its selections patches against the newer copy, saving the
   * rejected patch and the re-read; forgotten when the Pod's last claim is released.
   */
  readonly #writtenPods = new Map<string, { readonly pod: Pod; readonly sequence: number }>();
  #sequence = 0;

  readonly #reader: ConsumerReader;

  constructor(options: ManagedPreparerOptions) {
    this.#options = options;
    this.#podLocks = options.podLocks;
    const live = kubeConsumerReader(options.client);
    const { watchedNode } = options;
    this.#reader = watchedNode === undefined ? live : { ...live, node: (_name, signal) => watchedNode(signal) };
  }

  async prepare(ref: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]> {
    try {
      return await this.#prepare(ref, signal);
    } catch (error) {
      this.#options.onFailure?.('prepare', ref, error);
      throw error;
    }
  }

  async unprepare(ref: ClaimRef, signal: AbortSignal): Promise<void> {
    try {
      await this.#unprepare(ref, signal);
    } catch (error) {
      this.#options.onFailure?.('unprepare', ref, error);
      throw error;
    }
  }

  async #prepare(ref: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]> {
    const options = this.#options;
    const recorded = options.checkpoint.get(ref.uid);
    if (recorded !== undefined && isReleasing(recorded)) throw releaseInProgress(ref, recorded);
    const before = await this.#resolve(ref, recorded, signal);
    const podUID = before.consumer.pod.uid;
    return this.#podLocks.run(podUID, async (queued) => {
      const current = options.checkpoint.get(ref.uid);
      if (current !== undefined && isReleasing(current)) throw releaseInProgress(ref, current);
      // While this call waited for another claim of the Pod, the claim may have been handed to another
      // consumer or the Pod started terminating: what was verified before the lock is verified again, on
      // the claim read now and the Pod as read now or as the lock's holder just wrote it.
      const { consumer, eligible, resolvedAt } = before;
      const claim = queued ? await this.#recheck(ref, before, current === undefined ? 'prepare' : 'retry', signal) : before.claim;
      const bindings =
        current === undefined
          ? await planClaimBindings(consumer, ref.uid, claim, {
              client: options.client,
              node: options.node,
              driverName: options.driverName,
              eligible,
              pciOf: (device) => options.pciOf(device),
              recorded: (uid) => {
                const record = options.checkpoint.get(uid);
                return record === undefined || record.pod.uid !== podUID ? undefined : managedBindingsOf(record);
              },
              signal,
            })
          : new Map();
      const prepared = await options.devices.prepare(ref, signal, { claim, bindings });
      const written = this.#writtenPods.get(podUID);
      const newest = written !== undefined && written.sequence > resolvedAt ? written.pod : consumer.livePod;
      const outcome = await runForwardSequence(options, ref.uid, { current: newest, signal });
      this.#writtenPods.set(podUID, { pod: outcome.pod, sequence: ++this.#sequence });
      options.onPrepared?.(ref, outcome);
      return prepared;
    });
  }

  /** The claim read live and its consumer resolved and verified (§6.1): a first prepare, or a retry of the recorded claim. */
  async #resolve(ref: ClaimRef, recorded: ClaimRecord | undefined, signal: AbortSignal): Promise<Resolution> {
    const options = this.#options;
    const claim = await readResourceClaim(options.client, ref.namespace, ref.name, signal);
    if (claim.metadata.uid !== ref.uid) {
      throw new SriovDraError('ObjectReplaced', `the kubelet asked for UID ${ref.uid}, the API server has UID ${claim.metadata.uid}`, {
        object: { kind: 'ResourceClaim', namespace: ref.namespace, name: ref.name, uid: ref.uid },
      });
    }
    const resolvedAt = ++this.#sequence;
    const eligible = await options.eligible(signal);
    // A recorded device stays the claim's even if a later policy change stopped publishing it.
    const devices = new Set([...eligible.keys(), ...(recorded === undefined ? [] : managedBindingsOf(recorded).map((binding) => binding.device))]);
    const consumer = await resolvePodForClaim(claim, {
      reader: this.#reader,
      nodeName: options.node.name,
      nodeUID: options.node.uid,
      driverName: options.driverName,
      snapshot: { pool: options.node.name, devices },
      purpose: recorded === undefined ? 'prepare' : 'retry',
      signal,
    });
    return { claim, consumer, eligible, resolvedAt };
  }

  /** The claim read again after waiting for the Pod's lock, and its consumer verified again on it (recheckConsumer). */
  async #recheck(ref: ClaimRef, before: Resolution, purpose: ResolvePurpose, signal: AbortSignal): Promise<ResourceClaim> {
    const { pod } = before.consumer;
    const claim = await readResourceClaim(this.#options.client, ref.namespace, ref.name, signal);
    const written = this.#writtenPods.get(pod.uid);
    const livePod = written !== undefined && written.sequence > before.resolvedAt ? written.pod : await this.#reader.pod(pod.namespace, pod.name, signal);
    const verdict = recheckConsumer(claim, livePod, { claimUID: ref.uid, podUID: pod.uid, nodeName: this.#options.node.name }, purpose);
    if (!verdict.ok) throw verdict.error;
    return claim;
  }

  async #unprepare(ref: ClaimRef, signal: AbortSignal): Promise<void> {
    const options = this.#options;
    const record = options.checkpoint.get(ref.uid);
    if (record === undefined) return;
    if (managedBindingsOf(record).length === 0) {
      await options.devices.unprepare(ref, signal);
      return;
    }
    await this.#podLocks.run(record.pod.uid, async () => {
      const outcome = await runReleaseSequence(options, options.devices, ref, signal);
      if (options.checkpoint.claimsOfPod(record.pod.uid).length === 0) this.#writtenPods.delete(record.pod.uid);
      options.onReleased?.(ref, outcome);
    });
  }
}
