import { MANAGED_BY_VALUE, type SriovDraError, labels as contractLabels } from '@sriov-dra/contract';
import { type EventRecorder, Informer, type KubeClient, type KubeObject, WorkQueue, readNode, resourceTypes } from '@sriov-dra/k8s';
import { type EligibleDevice, type InventoryDevice, type PolicyResolution, resolvePolicyDevices } from '../policy/policy-devices.ts';
import type { PublishLimits } from '../policy/publishable-device.ts';
import { type PublishResult, publishResourceSlices } from './slice-publisher.ts';

export interface SlicePublicationOptions {
  readonly client: KubeClient;
  readonly driver: string;
  readonly nodeName: string;
  /** The driver's namespace, where its SriovResourcePolicy and DeviceAttributes objects live. */
  readonly namespace: string;
  readonly limits: PublishLimits;
  /** The current discovered inventory; call inventoryChanged() whenever it changes. */
  readonly inventory: () => readonly InventoryDevice[];
  /**
   * Period of an unconditional pass. It is what picks up a change of the Node's labels (a policy's node
   * selector), since the Node is read live in each pass rather than watched; 0 disables it.
   */
  readonly resyncMs?: number;
  /** Withheld devices are reported as Warning events on the Node. */
  readonly events?: EventRecorder;
  /** Observes every completed pass (logging, metrics). */
  readonly onPass?: (resolution: PolicyResolution, result: PublishResult) => void;
  readonly onError?: (error: unknown) => void;
}

/** The single work item: the node's one pool is always published as a whole. */
const POOL = 'pool';

interface Waiter {
  readonly resolve: (result: PublishResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Keeps the node's ResourceSlices equal to the policy-eligible devices (§12.2.5). A change of a
 * SriovResourcePolicy or DeviceAttributes object in the driver namespace, of the inventory, or of one of
 * the node's slices (the kubelet deletes them when it restarts) queues one pass; passes never overlap,
 * and changes that arrive during a pass queue exactly one more. A pass reads the Node live, resolves
 * policy against the informer caches, and writes only what differs from the slices listed live.
 */
export class SlicePublication {
  private readonly options: SlicePublicationOptions;
  private readonly queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 30_000 });
  private readonly policies: Informer<KubeObject>;
  private readonly deviceAttributes: Informer<KubeObject>;
  private waiters: Waiter[] = [];
  private published: ReadonlyMap<string, EligibleDevice> = new Map();
  private publishedOnce = false;
  private readonly firstPassWaiters = new Set<() => void>();

  constructor(options: SlicePublicationOptions) {
    this.options = options;
    const enqueue = (): void => {
      this.queue.add(POOL);
    };
    const trigger = { onAdd: enqueue, onUpdate: enqueue, onDelete: enqueue };
    this.policies = new Informer(options.client, resourceTypes.sriovResourcePolicy, trigger, { namespace: options.namespace, onError: options.onError });
    this.deviceAttributes = new Informer(options.client, resourceTypes.deviceAttributes, trigger, { namespace: options.namespace, onError: options.onError });
  }

  /**
   * The devices of the last successful publication, by name, with the merged attributes they were
   * published with: what a managed prepare checks an allocated device against (§12.2.5 item 4), so a
   * withdrawn device or mapping fails visibly instead of reaching another rail. Before the first
   * successful pass this waits for it: the kubelet may call right after a restart, for devices the
   * previous process published, and an empty answer would refuse them all. Rejects with the signal's
   * reason if it aborts first.
   */
  async eligibleDevices(signal: AbortSignal): Promise<ReadonlyMap<string, EligibleDevice>> {
    if (!this.publishedOnce) {
      signal.throwIfAborted();
      const { promise, resolve, reject } = Promise.withResolvers<undefined>();
      const waiter = (): void => {
        resolve(undefined);
      };
      // A prepare the kubelet gave up on stops waiting, and is forgotten.
      const onAbort = (): void => {
        this.firstPassWaiters.delete(waiter);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.firstPassWaiters.add(waiter);
      try {
        await promise;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    }
    return this.published;
  }

  /** Discovery reports a changed inventory. */
  inventoryChanged(): void {
    this.queue.add(POOL);
  }

  /** Resolves with the outcome of a pass that starts after this call (rejects if that pass fails). */
  sync(): Promise<PublishResult> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.queue.add(POOL);
    });
  }

  /** Publishes until the signal aborts; API failures are retried with backoff, never thrown. */
  async run(signal: AbortSignal): Promise<void> {
    const node = await readNode(this.options.client, this.options.nodeName, signal);
    const trigger = (): void => {
      this.queue.add(POOL);
    };
    const slices = new Informer(
      this.options.client,
      resourceTypes.resourceSlice,
      { onAdd: trigger, onUpdate: trigger, onDelete: trigger },
      // Watched by label (the API offers no field-selected watch through this client); the pass itself
      // lists by driver and node, so a slice that lost its labels is still found and corrected.
      { labelSelector: `${contractLabels.managedBy}=${MANAGED_BY_VALUE},${contractLabels.nodeUID}=${node.metadata.uid}`, onError: this.options.onError },
    );
    const informers = [this.policies, this.deviceAttributes, slices];
    const running = informers.map((informer) => informer.run(signal));
    const resync = this.options.resyncMs ?? 60_000;
    const timer = resync > 0 ? setInterval(trigger, resync) : undefined;
    const stop = (): void => {
      this.queue.shutDown();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
      this.queue.add(POOL);
      for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
        await this.pass(key, signal);
      }
    } finally {
      if (timer !== undefined) clearInterval(timer);
      signal.removeEventListener('abort', stop);
      stop();
      await Promise.all(running);
      for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('slice publication stopped'));
    }
  }

  private async pass(key: string, signal: AbortSignal): Promise<void> {
    const waiters = this.waiters;
    this.waiters = [];
    try {
      const node = await readNode(this.options.client, this.options.nodeName, signal);
      const resolution = resolvePolicyDevices({
        nodeName: this.options.nodeName,
        nodeLabels: node.metadata.labels ?? {},
        namespace: this.options.namespace,
        policies: this.policies.list(),
        deviceAttributes: this.deviceAttributes.list(),
        devices: this.options.inventory(),
        limits: this.options.limits,
      });
      const result = await publishResourceSlices(
        this.options.client,
        this.options.driver,
        { nodeName: this.options.nodeName, nodeUID: node.metadata.uid },
        resolution.eligible,
        signal,
      );
      this.queue.forget(key);
      // Replaced whole, after the write: a reader sees one pass's eligibility, never a mix of two.
      this.published = new Map(resolution.eligible.map((device) => [device.name, device]));
      if (!this.publishedOnce) {
        this.publishedOnce = true;
        for (const resolve of this.firstPassWaiters) resolve();
        this.firstPassWaiters.clear();
      }
      await this.report(resolution, { name: node.metadata.name, uid: node.metadata.uid });
      this.options.onPass?.(resolution, result);
      for (const waiter of waiters) waiter.resolve(result);
    } catch (error) {
      this.options.onError?.(error);
      for (const waiter of waiters) waiter.reject(error);
      if (!signal.aborted) this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
  }

  /** One Warning per distinct reason a device is withheld; the recorder folds repeats into a series. */
  private async report(resolution: PolicyResolution, node: { name: string; uid: string }): Promise<void> {
    const events = this.options.events;
    if (events === undefined) return;
    const distinct = new Map<string, { error: SriovDraError; devices: string[] }>();
    for (const device of resolution.withheld) {
      const entry = distinct.get(device.error.message) ?? { error: device.error, devices: [] };
      entry.devices.push(device.name);
      distinct.set(device.error.message, entry);
    }
    for (const { error, devices } of distinct.values()) {
      await events.record(
        { apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid },
        { type: 'Warning', reason: error.code, action: 'PublishResourceSlices', note: `withheld ${devices.join(', ')}: ${error.message}` },
      );
    }
  }
}
