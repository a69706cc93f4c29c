// Lease leader election and the events recorder against a real API server.
import { describe, expect, it } from '@jest/globals';
import { KubeApiError } from '../src/api-errors.ts';
import { KubeClient, type KubeObject } from '../src/client.ts';
import { EventRecorder } from '../src/events.ts';
import { LeaderElector } from '../src/leader-election.ts';
import { resourceTypes } from '../src/resources.ts';
import { waitFor } from '../src/testing/index.ts';
import { createPod, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ namespace: 'coord' });

/** A client whose every request fails once `partitioned` is set, as if the node lost the API server. */
class PartitionableClient extends KubeClient {
  partitioned = false;
  constructor(base: KubeClient) {
    super(base.config, { qps: 1_000, burst: 1_000 });
  }
  override async request(...args: Parameters<KubeClient['request']>): Promise<unknown> {
    if (this.partitioned) throw new KubeApiError('Unavailable', 0, { method: args[0].method, path: args[0].path });
    return super.request(...args);
  }
}

// Generous for a loaded 2-core CI machine: a healthy leader must never miss its renew deadline.
const timing = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 250 };

describe('LeaderElector', () => {
  it('elects one leader, hands over on release, and a partitioned leader steps down before a successor starts', async () => {
    const clientA = new PartitionableClient(shared.admin);
    const overlap: string[] = [];
    const leading = new Set<string>();
    const elector = (identity: string, client: KubeClient): LeaderElector =>
      new LeaderElector(client, {
        namespace: 'coord',
        name: 'driver-leader',
        identity,
        ...timing,
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            if (leading.size > 0) overlap.push(`${identity} started while ${[...leading].join(',')} led`);
            leading.add(identity);
            signal.addEventListener('abort', () => {
              leading.delete(identity);
              resolve();
            });
          }),
      });
    const a = elector('a', clientA);
    const b = elector('b', shared.admin);
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = a.run(stopA.signal);
    await waitFor('a leads', () => Promise.resolve(a.isLeader()), { timeoutMs: 10_000 });
    const runB = b.run(stopB.signal);
    await new Promise((resolve) => setTimeout(resolve, 2 * timing.leaseDurationMs));
    expect(b.isLeader()).toBe(false);

    // A loses the API server: it must stop leading (renew deadline) before B may start (lease expiry).
    clientA.partitioned = true;
    await waitFor('b takes over', () => Promise.resolve(b.isLeader()), { timeoutMs: 20_000 });
    expect(a.isLeader()).toBe(false);

    // A recovers and campaigns again, but B holds the lease.
    clientA.partitioned = false;
    await new Promise((resolve) => setTimeout(resolve, 2 * timing.leaseDurationMs));
    expect(a.isLeader()).toBe(false);

    // B stops cleanly and releases: A takes over without waiting for expiry.
    stopB.abort();
    await runB;
    await waitFor('a leads again', () => Promise.resolve(a.isLeader()), { timeoutMs: 10_000 });
    stopA.abort();
    await runA;
    clientA.close();
    expect(overlap).toEqual([]);
    const lease = await shared.admin.get<KubeObject & { spec: { holderIdentity?: string; leaseTransitions?: number } }>(resourceTypes.lease, {
      namespace: 'coord',
      name: 'driver-leader',
    });
    expect(lease.spec.holderIdentity ?? '').toBe('');
    expect(lease.spec.leaseTransitions).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

describe('EventRecorder', () => {
  it('folds repeats into one Event series and keeps distinct events apart', async () => {
    const pod = await createPod(shared.admin, 'coord', 'evented');
    const errors: unknown[] = [];
    const recorder = new EventRecorder(shared.admin, {
      reportingController: 'sriovnetwork.k8snetworkplumbingwg.io/dra-driver',
      reportingInstance: 'worker-a',
      seriesUpdateIntervalMs: 0,
      onError: (error) => errors.push(error),
    });
    const regarding = { apiVersion: 'v1', kind: 'Pod', namespace: 'coord', name: 'evented', uid: pod.metadata.uid };
    const failure = { type: 'Warning', reason: 'MissingNetworkTemplate', action: 'Prepare', note: 'no template for 0000:03:00.1' } as const;
    for (let i = 0; i < 3; i += 1) await recorder.record(regarding, failure);
    await recorder.record(regarding, { ...failure, note: 'no template for 0000:03:00.2' });
    expect(errors).toEqual([]);
    const events = await shared.admin.list<KubeObject & { note: string; series?: { count: number }; regarding: { uid: string } }>(resourceTypes.event, {
      namespace: 'coord',
    });
    const mine = events.items.filter((event) => event.regarding.uid === pod.metadata.uid).map((event) => [event.note, event.series?.count ?? 1]);
    expect(mine.sort()).toEqual([
      ['no template for 0000:03:00.1', 3],
      ['no template for 0000:03:00.2', 1],
    ]);
  });
});
