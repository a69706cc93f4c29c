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
  /** A leader that cannot renew for this long steps down (must be shorter than the lease duration). */
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Called once leadership is acquired; `signal` aborts when it is lost or the elector stops. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  readonly onStoppedLeading?: () => void;
  readonly onError?: (error: unknown) => void;
  /** Monotonic clock in ms; injectable for tests. */
  readonly now?: () => number;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

/** MicroTime as the API expects it: RFC 3339 with microseconds. */
function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Lease-based leader election (coordination.k8s.io/v1), client-go semantics. Expiry is judged by the
 * local monotonic clock from the moment this process last saw the lease change — never by comparing
 * the holder's timestamps with our wall clock — so clock skew between nodes cannot elect two leaders.
 * Every write is a JSON Patch behind a resourceVersion test: two candidates cannot both win a round.
 */
export class LeaderElector {
  private readonly client: KubeClient;
  private readonly options: LeaderElectionOptions;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private observed: { record: string; at: number } | undefined;
  private leader = false;

  constructor(client: KubeClient, options: LeaderElectionOptions) {
    this.client = client;
    this.options = options;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? (() => performance.now());
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new RangeError('renewDeadlineMs must be shorter than leaseDurationMs');
  }

  isLeader(): boolean {
    return this.leader;
  }

  /** Campaigns and leads until `signal` aborts; then releases the lease if held. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.attempt(signal))) {
        await delay(this.retryPeriodMs, signal).catch(() => undefined);
        continue;
      }
      const leading = new AbortController();
      const stop = (): void => {
        leading.abort();
      };
      signal.addEventListener('abort', stop, { once: true });
      this.leader = true;
      const work = Promise.resolve(this.options.onStartedLeading(leading.signal)).catch((error: unknown) => this.options.onError?.(error));
      let lastRenew = this.now();
      // Read through a call: the signal flips asynchronously, which flow analysis cannot see.
      const deposed = (): boolean => leading.signal.aborted;
      while (!deposed()) {
        await delay(this.retryPeriodMs, leading.signal).catch(() => undefined);
        if (deposed()) break;
        if (await this.attempt(leading.signal)) lastRenew = this.now();
        else if (this.now() - lastRenew > this.renewDeadlineMs) leading.abort();
      }
      signal.removeEventListener('abort', stop);
      this.leader = false;
      await work;
      this.options.onStoppedLeading?.();
    }
    await this.release();
  }

  /** One acquire-or-renew round; true when this process holds the lease afterwards. */
  private async attempt(signal: AbortSignal): Promise<boolean> {
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
        return true;
      }
      const record = JSON.stringify(lease.spec ?? {});
      if (this.observed?.record !== record) this.observed = { record, at: this.now() };
      const holder = lease.spec?.holderIdentity ?? '';
      const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== identity && this.now() - this.observed.at < durationMs) return false;
      await this.client.patch(
        resourceTypes.lease,
        at,
        [...identityPreconditions(lease.metadata), { op: 'add', path: '/spec', value: desired(lease.spec) }],
        contentTypes.jsonPatch,
        { signal },
      );
      return true;
    } catch (error) {
      if (!signal.aborted) this.options.onError?.(error);
      return false;
    }
  }

  /** Gives the lease up on a clean stop so a successor need not wait for it to expire. */
  private async release(): Promise<void> {
    const { namespace, name, identity } = this.options;
    try {
      const lease = await this.client.get<Lease>(resourceTypes.lease, { namespace, name });
      if (lease.spec?.holderIdentity !== identity) return;
      await this.client.patch(
        resourceTypes.lease,
        { namespace, name },
        [...identityPreconditions(lease.metadata), { op: 'add', path: '/spec', value: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } }],
        contentTypes.jsonPatch,
      );
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
