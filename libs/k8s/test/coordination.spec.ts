// Lease leader election and the events recorder against a real API server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { isApiError } from '../src/api-errors.ts';
import type { KubeClient, KubeObject } from '../src/client.ts';
import { EventRecorder } from '../src/events.ts';
import { LeaderElector } from '../src/leader-election.ts';
import { resourceTypes } from '../src/resources.ts';
import { type TcpProxy, startTcpProxy, waitFor } from '../src/testing/index.ts';
import { createPod, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ namespace: 'coord' });

// Generous for a loaded 2-core CI machine: a healthy leader renews every 500 ms and loses nothing
// unless it fails to renew for 5 s; the 3 s between renew deadline and lease duration is the margin.
const timing = { leaseDurationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 500 };

interface Transition {
  readonly at: number;
  readonly who: string;
  readonly event: 'start' | 'stop';
  /** The other elector's isLeader() at this instant. */
  readonly otherLeads: boolean;
  readonly reason?: unknown;
}

describe('LeaderElector', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(shared.cp.server).port) });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('a leader whose connection hangs stops leading before another acquires; never two leaders at once', async () => {
    // A reaches the API server through the proxy, B directly; A keeps its client's default 30 s request
    // timeout, so only the elector's renew deadline can end A's hanging renewals in time.
    const clientA = shared.cp.adminClientAt(proxy.via(shared.cp.server));
    const transitions: Transition[] = [];
    const errorsA: unknown[] = [];
    const electors = new Map<string, LeaderElector>();
    const elector = (identity: string, other: string, client: KubeClient, onError?: (error: unknown) => void): LeaderElector => {
      const created = new LeaderElector(client, {
        namespace: 'coord',
        name: 'driver-leader',
        identity,
        ...timing,
        onError,
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            transitions.push({ at: performance.now(), who: identity, event: 'start', otherLeads: electors.get(other)?.isLeader() === true });
            signal.addEventListener('abort', () => {
              transitions.push({
                at: performance.now(),
                who: identity,
                event: 'stop',
                otherLeads: electors.get(other)?.isLeader() === true,
                reason: signal.reason,
              });
              resolve();
            });
          }),
      });
      electors.set(identity, created);
      return created;
    };
    const a = elector('a', 'b', clientA, (error) => errorsA.push(error));
    const b = elector('b', 'a', shared.admin);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = a.run(stopA.signal);
    await waitFor('a leads', () => Promise.resolve(a.isLeader()), { timeoutMs: 20_000 });
    const runB = b.run(stopB.signal);
    // A healthy leader keeps the lease beyond its duration: B sees it renewed and waits.
    await new Promise((resolve) => setTimeout(resolve, timing.leaseDurationMs + 4 * timing.retryPeriodMs));

    // A's connection to the API server goes silent: requests are accepted and never answered.
    const cutAt = performance.now();
    proxy.blackhole();
    let abandonedWhenBLed = -1;
    await waitFor(
      'b takes over',
      () => {
        if (b.isLeader() && abandonedWhenBLed < 0) abandonedWhenBLed = proxy.closedWhileSilent;
        return Promise.resolve(b.isLeader());
      },
      { timeoutMs: 60_000 },
    );

    // A's connection recovers; A campaigns again, but B holds the lease.
    proxy.restore();
    await new Promise((resolve) => setTimeout(resolve, timing.leaseDurationMs + 4 * timing.retryPeriodMs));

    // B stops cleanly and releases: A takes over without waiting for expiry.
    stopB.abort();
    await runB;
    await waitFor('a leads again', () => Promise.resolve(a.isLeader()), { timeoutMs: 20_000 });
    stopA.abort();
    await runA;

    // Exact, not sampled: both electors run in this process, so transitions are totally ordered.
    const leaders = new Set<string>();
    const overlaps: string[] = [];
    for (const transition of transitions) {
      if (transition.event === 'start') {
        if (leaders.size > 0 || transition.otherLeads) overlaps.push(`${transition.who} started while ${[...leaders].join(',')} led`);
        leaders.add(transition.who);
      } else {
        leaders.delete(transition.who);
      }
    }
    expect(overlaps).toEqual([]);
    expect(transitions.map((transition) => `${transition.who} ${transition.event}`)).toEqual(['a start', 'a stop', 'b start', 'b stop', 'a start', 'a stop']);
    const [, lost, takeover] = transitions;
    // A stopped because its renewals ran out of time, after the cut, and its hanging request was
    // aborted (the client closed the silenced connection) rather than left to the 30 s client timeout.
    expect(isSriovDraError(lost?.reason, 'LeadershipLost')).toBe(true);
    expect(lost?.at).toBeGreaterThan(cutAt);
    expect(abandonedWhenBLed).toBeGreaterThanOrEqual(1);
    expect(errorsA.some((error) => isApiError(error, 'Timeout') && error.request.object?.kind === 'Lease')).toBe(true);
    expect(takeover?.at).toBeGreaterThan(lost?.at ?? Number.POSITIVE_INFINITY);

    const lease = await shared.admin.get<KubeObject & { spec: { holderIdentity?: string; leaseTransitions?: number } }>(resourceTypes.lease, {
      namespace: 'coord',
      name: 'driver-leader',
    });
    expect(lease.spec.holderIdentity ?? '').toBe('');
    expect(lease.spec.leaseTransitions).toBeGreaterThanOrEqual(2);
  }, 150_000);
});

describe('LeaderElector and a foreign holder', () => {
  it('stops leading at once when its renewal finds the Lease held by someone else', async () => {
    const reasons: unknown[] = [];
    const elector = new LeaderElector(shared.admin, {
      namespace: 'coord',
      name: 'overwritten-leader',
      identity: 'a',
      ...timing,
      onStartedLeading: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            resolve();
          });
        }),
    });
    const stop = new AbortController();
    const running = elector.run(stop.signal);
    await waitFor('a leads', () => Promise.resolve(elector.isLeader()), { timeoutMs: 20_000 });
    // Someone else writes itself into the Lease (an operator, or a candidate with a skewed view).
    const lease = await shared.admin.get<KubeObject & { spec: Record<string, unknown> }>(resourceTypes.lease, {
      namespace: 'coord',
      name: 'overwritten-leader',
    });
    await shared.admin.patch(
      resourceTypes.lease,
      { namespace: 'coord', name: 'overwritten-leader' },
      { spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3_600 } },
      'application/merge-patch+json',
    );
    await waitFor('a stops leading', () => Promise.resolve(!elector.isLeader()), { timeoutMs: 20_000 });
    stop.abort();
    await running;
    expect(reasons).toHaveLength(1);
    expect(isSriovDraError(reasons[0], 'LeadershipLost')).toBe(true);
    // Not the renew deadline running out: the renewal saw the other holder.
    expect((reasons[0] as Error).message).toContain('held by another candidate');
  }, 60_000);
});

describe('EventRecorder', () => {
  it('folds repeats into one Event series whose count a timer writes at the default interval, and close() writes the rest', async () => {
    const pod = await createPod(shared.admin, 'coord', 'evented');
    const errors: unknown[] = [];
    const recorder = new EventRecorder(shared.admin, {
      reportingController: 'sriovnetwork.k8snetworkplumbingwg.io/dra-driver',
      reportingInstance: 'worker-a',
      onError: (error) => errors.push(error),
    });
    const regarding = { apiVersion: 'v1', kind: 'Pod', namespace: 'coord', name: 'evented', uid: pod.metadata.uid };
    const failure = { type: 'Warning', reason: 'MissingNetworkTemplate', action: 'Prepare', note: 'no template for 0000:03:00.1' } as const;
    for (let i = 0; i < 3; i += 1) await recorder.record(regarding, failure);
    await recorder.record(regarding, { ...failure, note: 'no template for 0000:03:00.2' });
    const mine = async (): Promise<(string | number)[][]> => {
      const events = await shared.admin.list<KubeObject & { note: string; series?: { count: number }; regarding: { uid: string } }>(resourceTypes.event, {
        namespace: 'coord',
      });
      return events.items
        .filter((event) => event.regarding.uid === pod.metadata.uid)
        .map((event) => [event.note, event.series?.count ?? 1])
        .sort();
    };
    // No further occurrence follows the burst: only the recorder's own timer can write the count.
    await waitFor('the series count reaches the API', async () => (await mine()).some(([note, count]) => note === failure.note && count === 3), {
      timeoutMs: 90_000,
    });
    expect(await mine()).toEqual([
      ['no template for 0000:03:00.1', 3],
      ['no template for 0000:03:00.2', 1],
    ]);
    // A burst still inside the interval when the recorder closes is written by close().
    await recorder.record(regarding, failure);
    await recorder.record(regarding, failure);
    await recorder.close();
    expect(await mine()).toEqual([
      ['no template for 0000:03:00.1', 5],
      ['no template for 0000:03:00.2', 1],
    ]);
    expect(errors).toEqual([]);
  }, 120_000);
});
