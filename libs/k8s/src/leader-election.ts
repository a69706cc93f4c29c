import { SriovDraError } from '@sriov-dra/contract';
import { isApiError } from './api-errors.ts';
import { type KubeClient, type KubeObject, contentTypes } from './client.ts';
import { identityPreconditions } from './json-patch.ts';
import { delay } from './rate-limiter.ts';
import { resourceTypes } from './resources.ts';

export interface LeaderElectionOptions {
  readonly namespace: string;
  readonly name: string;
  /** Unique per process, e.g. the Pod name. */
  readonly identity: string;
  readonly leaseDurationMs?: number;
  /**
   * A leader stops leading this long after the start of its last successful renewal, and every
   * acquire or renew request is aborted when it would outlive that point. Must be shorter than the
   * lease duration: the gap is the margin that keeps a partitioned leader's end before a successor's start.
   */
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /**
   * Called once leadership is acquired; `signal` aborts the moment it is lost (its reason is a
   * LeadershipLost error) or the elector stops.
   */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called after leadership ended and the work started by onStartedLeading has settled. */
  readonly onStoppedLeading?: () => void;
  readonly onError?: (error: unknown) => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

/** The outcome of one acquire-or-renew round. */
type Attempt = 'held' | 'heldByOther' | 'failed';

/** MicroTime as the API expects it: RFC 3339 with microseconds. */
function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Lease-based leader election (coordination.k8s.io/v1), client-go semantics. Expiry is judged by the
 * local monotonic clock from the moment this process last saw the lease change — never by comparing
 * the holder's timestamps with our wall clock — so clock skew between nodes cannot elect two leaders.
 * Every write is a JSON Patch behind a resourceVersion test: two candidates cannot both win a round.
 *
 * The leader's side of that bargain is the renew deadline, enforced by a timer rather than by the renew
 * loop: a request hanging on a dead connection cannot keep a process leading, because leadership ends at
 * (start of the last successful renewal + renew deadline) and the hanging request is aborted then. Any
 * successor observed that renewal no earlier than it was sent, and waits a full lease duration from its
 * observation, which is longer.
 */
export class LeaderElector {
  private readonly client: KubeClient;
  private readonly options: LeaderElectionOptions;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observed: { record: string; at: number } | undefined;
  private leader = false;

  constructor(client: KubeClient, options: LeaderElectionOptions) {
    this.client = client;
    this.options = options;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.renewDeadlineMs > 0 && this.renewDeadlineMs < this.leaseDurationMs && this.retryPeriodMs > 0)) {
      throw new SriovDraError(
        'InvalidComponentSetting',
        `leader election needs 0 < renewDeadlineMs < leaseDurationMs and retryPeriodMs > 0 (got ${this.renewDeadlineMs}, ${this.leaseDurationMs}, ${this.retryPeriodMs})`,
        { object: { kind: 'Lease', namespace: options.namespace, name: options.name } },
      );
    }
  }

  isLeader(): boolean {
    return this.leader;
  }

  /** Campaigns and leads until `signal` aborts; then releases the lease if held. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = performance.now();
      const acquired = await this.attempt(AbortSignal.any([signal, AbortSignal.timeout(this.renewDeadlineMs)]), signal);
      // A success that arrived after its own deadline is already too old to lead on.
      if (acquired !== 'held' || performance.now() >= started + this.renewDeadlineMs) {
        await delay(this.retryPeriodMs, signal).catch(() => undefined);
        continue;
      }
      await this.lead(signal, started);
    }
    await this.release();
  }

  /** Leads from a renewal that started at `renewedAt` until the renew deadline passes or `signal` aborts. */
  private async lead(signal: AbortSignal, renewedAt: number): Promise<void> {
    const leading = new AbortController();
    const lost = (detail: string, remedy?: string): void => {
      leading.abort(
        new SriovDraError('LeadershipLost', detail, { object: { kind: 'Lease', namespace: this.options.namespace, name: this.options.name }, remedy }),
      );
    };
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const arm = (from: number): void => {
      clearTimeout(deadline);
      deadline = setTimeout(
        () => {
          lost(`${this.options.identity} could not renew within ${this.renewDeadlineMs} ms`);
        },
        Math.max(0, from + this.renewDeadlineMs - performance.now()),
      );
    };
    const stop = (): void => {
      leading.abort(signal.reason);
    };
    // Leadership ends synchronously with the abort, so isLeader() never outlives the signal.
    leading.signal.addEventListener('abort', () => {
      this.leader = false;
      clearTimeout(deadline);
    });
    signal.addEventListener('abort', stop, { once: true });
    arm(renewedAt);
    this.leader = true;
    const work = Promise.resolve()
      .then(() => this.options.onStartedLeading(leading.signal))
      .catch((error: unknown) => this.options.onError?.(error));
    // Read through a call: the signal flips asynchronously, which flow analysis cannot see.
    const deposed = (): boolean => leading.signal.aborted;
    while (!deposed()) {
      await delay(this.retryPeriodMs, leading.signal).catch(() => undefined);
      if (deposed()) break;
      const started = performance.now();
      // The leading signal aborts at the deadline, which bounds this request too.
      const renewed = await this.attempt(leading.signal, signal);
      if (deposed()) break;
      if (renewed === 'held') arm(started);
      else if (renewed === 'heldByOther') lost('the Lease is held by another candidate', 'this replica campaigns again and leads once the Lease is free');
    }
    signal.removeEventListener('abort', stop);
    await work;
    this.options.onStoppedLeading?.();
  }

  /** One acquire-or-renew round, bounded by `signal`; failures are reported unless `stopping` aborted. */
  private async attempt(signal: AbortSignal, stopping: AbortSignal): Promise<Attempt> {
    const { namespace, name, identity } = this.options;
    const at = { namespace, name };
    const desired = (previous: LeaseSpec | undefined): LeaseSpec => {
      const now = microTime();
      const takeover = previous?.holderIdentity !== identity;
      return {
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        acquireTime: takeover ? now : (previous.acquireTime ?? now),
        renewTime: now,
        leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous !== undefined && takeover ? 1 : 0),
      };
    };
    try {
      let lease: Lease;
      try {
        lease = await this.client.get<Lease>(resourceTypes.lease, at, signal);
      } catch (error) {
        if (!isApiError(error, 'NotFound')) throw error;
        await this.client.create(
          resourceTypes.lease,
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: desired(undefined) },
          { namespace, signal },
        );
        this.observed = undefined;
        return 'held';
      }
      const record = JSON.stringify(lease.spec ?? {});
      if (this.observed?.record !== record) this.observed = { record, at: performance.now() };
      const holder = lease.spec?.holderIdentity ?? '';
      const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== identity && performance.now() - this.observed.at < durationMs) return 'heldByOther';
      await this.client.patch(
        resourceTypes.lease,
        at,
        [...identityPreconditions(lease.metadata), { op: 'add', path: '/spec', value: desired(lease.spec) }],
        contentTypes.jsonPatch,
        { signal },
      );
      return 'held';
    } catch (error) {
      if (!stopping.aborted) this.options.onError?.(error);
      return 'failed';
    }
  }

  /** Gives the lease up on a clean stop so a successor need not wait for it to expire. */
  private async release(): Promise<void> {
    const { namespace, name, identity } = this.options;
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    try {
      const lease = await this.client.get<Lease>(resourceTypes.lease, { namespace, name }, signal);
      if (lease.spec?.holderIdentity !== identity) return;
      await this.client.patch(
        resourceTypes.lease,
        { namespace, name },
        [...identityPreconditions(lease.metadata), { op: 'add', path: '/spec', value: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } }],
        contentTypes.jsonPatch,
        { signal },
      );
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
