import { SriovDraError } from '@sriov-dra/contract';
import {
  type Backoff,
  type KubeClient,
  type KubeObject,
  backoffDelay,
  type Pod,
  type ResourceClaim,
  type ResourceType,
  isApiError,
  nodeSchema,
  podSchema,
  resourceClaimSchema,
  resourceTypes,
} from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';
import type { ClaimRef } from '../kubelet/claim-preparer.ts';
import type { KeyedLocks } from '../kubelet/keyed-locks.ts';
import { isAttached, isReleasing, managedBindingsOf } from './binding-records.ts';
import { failureReason } from './failure-reason.ts';
import { type BindingStore, runForwardSequence } from './forward-sequence.ts';
import { type HostRelease, runReleaseSequence } from './release-sequence.ts';
import { type RepairStop, isHealthy, repairStop } from './repair-check.ts';
import { NETWORK_STATUS_ANNOTATION, networkStatusEntries, withNetworkStatus, writeClaimNetworkStatus } from './claim-network-status.ts';
import type { AllocatedDeviceStatus } from '../device/claim-device-status.ts';
import type { NodeBindingsWatch } from './node-bindings-watch.ts';
import { type Orphan, findOrphans } from './orphan-scan.ts';
import type { ShadowObject } from './shadow-verification.ts';

/** Retries of a pass that could not start: from half a second, doubling, never beyond the period. */
const PASS_RETRY_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2, attempts: Number.POSITIVE_INFINITY };

export interface RepairWorkerOptions {
  readonly store: BindingStore;
  readonly host: HostRelease;
  readonly node: { readonly name: string; readonly uid: string };
  readonly driverName: string;
  /** The kubelet runtime's claim locks and the preparer's Pod locks: repair takes both, in that order. */
  readonly claimLocks: KeyedLocks;
  readonly podLocks: KeyedLocks;
  /** The Node as the driver's watch of it sees it (undefined: it does not exist). */
  readonly watchedNode: (signal: AbortSignal) => Promise<KubeObject | undefined>;
  /** This node's Pods and shadows, watched; started and stopped with the driver. */
  readonly watched: NodeBindingsWatch;
  /** Period of the unconditional pass (§8.3: bounded); triggers run one sooner. */
  readonly intervalMs: number;
  readonly logger: Logger;
  /** After each pass, with its duration; `result` is undefined when the pass could not start. */
  readonly onPass?: (result: RepairPass | undefined, seconds: number) => void;
}

/** What one pass did, claim by claim. Failures and stops are counted by their stable code. */
export interface RepairPass {
  readonly healthy: number;
  readonly repaired: number;
  readonly released: number;
  /** Claims whose status.devices got the network data Multus reported (KEP-4817). */
  readonly statusWritten: number;
  /** This node's shadows no checkpointed binding accounts for (§8.5): reported, never touched. */
  readonly orphans: readonly Orphan[];
  readonly stopped: ReadonlyMap<RepairStop, number>;
  readonly failed: ReadonlyMap<string, number>;
}

type PassTally = { -readonly [K in keyof RepairPass]: RepairPass[K] extends ReadonlyMap<infer Key, number> ? Map<Key, number> : RepairPass[K] };

function count<K>(map: Map<K, number>, key: K, amount = 1): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

/** A live GET decoded by `schema`; undefined when NotFound, a typed error when the object is malformed. */
async function readIfExists<T>(
  client: KubeClient,
  type: ResourceType,
  at: { readonly namespace?: string; readonly name: string },
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  let raw: unknown;
  try {
    raw = await client.get(type, at);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new SriovDraError('MalformedApiResponse', `the ${type.kind} as read lacks ${parsed.error.issues[0]?.path.join('.') ?? 'a field'}`, {
    object: { kind: type.kind, ...at },
  });
}

/**
 * The node-local repair worker (§8.3): at startup and then periodically, every checkpointed claim is
 * brought to where its phase says it belongs. Pending and Ready claims whose Pod, claim and Node still
 * match are repaired forward from their frozen bytes, after live reads of the Node, the Pod and its
 * claims. What needs no repair is seen without requests: watches of the node's Pods, its shadows and its
 * Node show each binding's state, and a Pod whose claims a pass verified live is read again only when the
 * Pod or its records change, so a healthy node costs no request per pass after the first. Deleting and
 * ReleaseComplete claims, released by an earlier kubelet call, are taken to their end. Nothing here starts a release: Pod deletion, a missing claim or a moved
 * allocation only stop forward repair. Every claim is handled under its claim lock and then its Pod lock,
 * like a kubelet call, and one claim's failure never stops the others.
 */
export class RepairWorker {
  readonly #options: RepairWorkerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  /** Aborted by stop(), so a pass still waiting for its watches to list does not hold up the driver's exit. */
  readonly #stopping = new AbortController();
  #passes = 0;
  /** Consecutive passes that could not start. */
  #failedPasses = 0;
  /** By Pod UID: the Pod and records a pass last found healthy live, claims included, with nothing to write (see `verification`). */
  readonly #verified = new Map<string, string>();

  constructor(options: RepairWorkerOptions) {
    this.#options = options;
  }

  /** Passes completed since start; the first one gates managed readiness. */
  get passes(): number {
    return this.#passes;
  }

  start(): void {
    this.trigger();
  }

  /** Runs a pass soon (a watch event, a failed call); passes never overlap, and a trigger during one queues one more. */
  trigger(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#running = this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #loop(): Promise<void> {
    for (;;) {
      this.#again = false;
      const started = performance.now();
      let result: RepairPass | undefined;
      try {
        result = await this.pass();
        this.#passes += 1;
        this.#failedPasses = 0;
      } catch (error) {
        this.#failedPasses += 1;
        // A pass cut short by stop() is no failure to report.
        if (!this.#stopped) this.#options.logger.warn({ err: error, attempt: this.#failedPasses }, 'repair pass failed; retrying with backoff');
      }
      this.#options.onPass?.(result, (performance.now() - started) / 1000);
      if (!this.#triggeredMeanwhile()) break;
    }
    this.#running = undefined;
    if (!this.#stopped) {
      // A pass that could not start (the API server briefly unavailable, a CRD's storage still starting)
      // is retried soon, not a whole period later: readiness waits for the first pass.
      const delay =
        this.#failedPasses === 0 ? this.#options.intervalMs : Math.min(this.#options.intervalMs, backoffDelay(PASS_RETRY_BACKOFF, this.#failedPasses));
      this.#timer = setTimeout(() => {
        this.trigger();
      }, delay).unref();
    }
  }

  #triggeredMeanwhile(): boolean {
    return this.#again && !this.#stopped;
  }

  /**
   * One pass over every checkpointed claim and this node's shadows. A Pod whose bindings the watches show
   * healthy, and whose Pod and records are what an earlier pass verified live, costs no request; any other
   * Pod is read live with its claims (and the Node once per pass), as every write needs. Rejects only when
   * the pass could not start: the watches not listed within a period, or the live Node read.
   */
  async pass(): Promise<RepairPass> {
    const { store, node, watched } = this.#options;
    const syncing = AbortSignal.any([AbortSignal.timeout(this.#options.intervalMs), this.#stopping.signal]);
    await watched.synced(syncing);
    const watchedNode = await this.#options.watchedNode(syncing);
    const records = store.checkpoint.claims();
    // The shadows also show orphans, which an empty checkpoint can have too (a lost state directory).
    const listed = watched.shadows();
    const result: PassTally = {
      healthy: 0,
      repaired: 0,
      released: 0,
      statusWritten: 0,
      orphans: findOrphans(listed, records.flatMap(managedBindingsOf), node.uid),
      stopped: new Map(),
      failed: new Map(),
    };
    const byPod = new Map<string, ClaimRecord[]>();
    for (const record of records) byPod.set(record.pod.uid, [...(byPod.get(record.pod.uid) ?? []), record]);
    for (const podUID of this.#verified.keys()) if (!byPod.has(podUID)) this.#verified.delete(podUID);
    if (records.length === 0) return result;

    const shadows = new Map(listed.map((item) => [`${item.metadata.namespace ?? ''}/${item.metadata.name}`, item]));
    const nodeWatched = watchedNode?.metadata.uid === node.uid;
    const unconfirmed: ClaimRecord[][] = [];
    for (const podRecords of byPod.values()) {
      const healthy = this.#healthyAsWatched(podRecords, shadows, nodeWatched);
      if (healthy === undefined) unconfirmed.push(podRecords);
      else result.healthy += healthy;
    }
    if (unconfirmed.length === 0) return result;
    // Forward repair and status writes are judged on the live Node, never on the watched one.
    const liveNode = await readIfExists(store.client, resourceTypes.node, { name: node.name }, nodeSchema);
    const nodeUnchanged = liveNode?.metadata.uid === node.uid;
    for (const podRecords of unconfirmed) await this.#repairPod(podRecords, { nodeUnchanged, shadows }, result);
    return result;
  }

  /**
   * How many of the Pod's claims are healthy with nothing read live, or undefined when the Pod must be read
   * live: the watched Node and Pod are the recorded ones, the Pod and its records are as a pass last
   * verified them live (claims included), and its shadows and selections are as the records say. A claim
   * changed since (its reservation dropped) goes unseen here, harmlessly: no write is made without a live
   * read of the Pod and the claim.
   */
  #healthyAsWatched(records: readonly ClaimRecord[], shadows: ReadonlyMap<string, ShadowObject>, nodeWatched: boolean): number | undefined {
    const managed = records.filter((record) => managedBindingsOf(record).length > 0);
    const first = managed[0];
    if (first === undefined) return 0;
    if (!nodeWatched || managed.some(isReleasing)) return undefined;
    const pod = this.#options.watched.pod(first.pod.namespace, first.pod.name);
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return undefined;
    if (this.#verified.get(first.pod.uid) !== verification(records, pod)) return undefined;
    return isHealthy(records, pod, shadows) ? managed.length : undefined;
  }

  async #repairPod(
    records: readonly ClaimRecord[],
    seen: { readonly nodeUnchanged: boolean; readonly shadows: ReadonlyMap<string, ShadowObject> },
    result: PassTally,
  ): Promise<void> {
    const { store, logger } = this.#options;
    const managed = records.filter((record) => managedBindingsOf(record).length > 0);
    const podUID = records[0]?.pod.uid ?? '';
    this.#verified.delete(podUID);
    for (const record of managed.filter(isReleasing)) {
      const ref = refOf(record);
      try {
        await this.#locked(record, () => runReleaseSequence(store, this.#options.host, ref, AbortSignal.timeout(this.#options.intervalMs)));
        result.released += 1;
      } catch (error) {
        count(result.failed, failureReason(error));
        logger.warn({ claimUID: ref.uid, podUID: record.pod.uid, err: error }, 'repair could not finish a release');
      }
    }
    const attached = managed.filter((record) => !isReleasing(record));
    if (attached.length === 0) return;
    const first = attached[0] as ClaimRecord;
    let pod: Pod | undefined;
    const claims = new Map<string, ResourceClaim | undefined>();
    try {
      pod = await readIfExists(store.client, resourceTypes.pod, { namespace: first.pod.namespace, name: first.pod.name }, podSchema);
      for (const record of attached) {
        const at = { namespace: record.claimNamespace, name: record.claimName };
        claims.set(record.claimUID, await readIfExists(store.client, resourceTypes.resourceClaim, at, resourceClaimSchema));
      }
    } catch (error) {
      count(result.failed, failureReason(error), attached.length);
      logger.warn({ podUID: first.pod.uid, err: error }, 'repair could not read the Pod or its claims');
      return;
    }
    const repairable: ClaimRecord[] = [];
    for (const record of attached) {
      const stop = repairStop(
        record,
        { pod, claim: claims.get(record.claimUID), nodeUnchanged: seen.nodeUnchanged },
        { nodeName: this.#options.node.name, driverName: this.#options.driverName },
      );
      if (stop === undefined) {
        repairable.push(record);
        continue;
      }
      count(result.stopped, stop);
      logger.info(
        { claimUID: record.claimUID, podUID: record.pod.uid, reason: stop },
        'forward repair stopped for the claim; waiting for the kubelet to release it',
      );
    }
    if (pod === undefined || repairable.length === 0) return;
    const live = pod;
    const healthy = repairable.length === attached.length && isHealthy(records, pod, seen.shadows);
    if (healthy) {
      result.healthy += repairable.length;
    } else {
      await this.#repairForward(repairable, live, result);
    }
    let reported = true;
    for (const record of repairable) reported = (await this.#reportNetworkStatus(record, live, claims.get(record.claimUID), result)) && reported;
    // Verified live with nothing to write: until the Pod or a record changes, the watches suffice.
    if (healthy && reported) this.#verified.set(podUID, verification(records, live));
  }

  /**
   * Copies what Multus reported for the claim's devices into the claim's status (KEP-4817), from the Pod
   * and claim this pass read: nothing is written until the Pod's network-status names a shadow, and
   * nothing again once the claim says it. Diagnostic only; a failure is counted, never retried sooner.
   * True when the claim already said what the Pod reports, so nothing was to be written.
   */
  async #reportNetworkStatus(record: ClaimRecord, pod: Pod, claim: ResourceClaim | undefined, result: PassTally): Promise<boolean> {
    const devices = managedBindingsOf(record)
      .filter((binding) => binding.phase === 'Ready')
      .map((binding) => ({ pool: binding.pool, device: binding.device, shadow: binding.shadow, renderedConfig: binding.renderedConfig }));
    const reports = networkStatusEntries(this.#options.driverName, pod.metadata.annotations?.[NETWORK_STATUS_ANNOTATION], devices, new Date());
    if (claim === undefined) return false;
    // The claim schema leaves status.devices undecoded: every entry is other drivers' as much as ours.
    const statuses = (claim.status?.['devices'] ?? []) as readonly AllocatedDeviceStatus[];
    if (withNetworkStatus(statuses, reports) === undefined) return true;
    const current = { ...claim, status: { ...claim.status, devices: statuses } };
    try {
      const ref = refOf(record);
      if (await writeClaimNetworkStatus(this.#options.store.client, ref, reports, AbortSignal.timeout(this.#options.intervalMs), current))
        result.statusWritten += 1;
    } catch (error) {
      count(result.failed, failureReason(error));
      this.#options.logger.warn({ claimUID: record.claimUID, err: error }, 'could not write the network status into the claim');
    }
    return false;
  }

  async #repairForward(repairable: readonly ClaimRecord[], pod: Pod, result: PassTally): Promise<void> {
    const { store, logger } = this.#options;
    for (const record of repairable) {
      try {
        const outcome = await this.#locked(record, async (queued) => {
          const current = store.checkpoint.get(record.claimUID);
          // The kubelet released or re-prepared the claim while this pass waited for its locks.
          if (current === undefined || isReleasing(current) || !managedBindingsOf(current).some(isAttached)) return undefined;
          let live = pod;
          if (queued) {
            // A kubelet call held the claim or the Pod meanwhile: the Pod may have started terminating or the
            // claim moved to another consumer since this pass read them, so both are read again before any write.
            const observed = await this.#observe(current);
            const stop = repairStop(current, { ...observed, nodeUnchanged: true }, { nodeName: this.#options.node.name, driverName: this.#options.driverName });
            if (stop !== undefined || observed.pod === undefined) {
              count(result.stopped, stop ?? 'PodGone');
              return undefined;
            }
            live = observed.pod;
          }
          return runForwardSequence(store, record.claimUID, { current: live, signal: AbortSignal.timeout(this.#options.intervalMs) });
        });
        if (outcome !== undefined) result.repaired += 1;
      } catch (error) {
        count(result.failed, failureReason(error));
        logger.warn({ claimUID: record.claimUID, podUID: record.pod.uid, err: error }, 'forward repair failed');
      }
    }
  }

  /** The claim's Pod and the claim itself, read live. */
  async #observe(record: ClaimRecord): Promise<{ pod: Pod | undefined; claim: ResourceClaim | undefined }> {
    const { client } = this.#options.store;
    const pod = await readIfExists(client, resourceTypes.pod, { namespace: record.pod.namespace, name: record.pod.name }, podSchema);
    const claim = await readIfExists(client, resourceTypes.resourceClaim, { namespace: record.claimNamespace, name: record.claimName }, resourceClaimSchema);
    return { pod, claim };
  }

  /** Runs `work` under the claim's lock and then its Pod's; `queued` when either had to be waited for. */
  #locked<T>(record: ClaimRecord, work: (queued: boolean) => Promise<T>): Promise<T> {
    return this.#options.claimLocks.run(record.claimUID, (claimQueued) =>
      this.#options.podLocks.run(record.pod.uid, (podQueued) => work(claimQueued || podQueued)),
    );
  }
}

/**
 * What a live verification of a Pod's claims holds for: the Pod's identity and node, the network status
 * Multus reported on it (which the claims' status must say), and the Pod's records as they were. The Pod's
 * other changes (its status, its selections) are judged again from the watch on every pass.
 */
function verification(records: readonly ClaimRecord[], pod: Pod): string {
  return JSON.stringify([pod.metadata.uid, pod.spec.nodeName, pod.metadata.annotations?.[NETWORK_STATUS_ANNOTATION] ?? null, records]);
}

function refOf(record: ClaimRecord): ClaimRef {
  return { namespace: record.claimNamespace, name: record.claimName, uid: record.claimUID };
}
