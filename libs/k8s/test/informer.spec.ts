// The informer on a real API server: it converges after a kube-apiserver restart and after its watch
// position expires (410 Gone), without missing or repeating a change. Watches are served by etcd
// directly and the API server never compacts on its own, so a 410 can only come from the compaction
// the test performs.
import { describe, expect, it } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { isApiError } from '../src/api-errors.ts';
import type { KubeClient, KubeObject } from '../src/client.ts';
import { Informer, type ListCause } from '../src/informer.ts';
import { resourceTypes } from '../src/resources.ts';
import { startTcpProxy, waitFor } from '../src/testing/index.ts';
import { useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'informer', watchFromEtcd: true });

const nad = (name: string, config: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'k8s.cni.cncf.io/v1',
  kind: 'NetworkAttachmentDefinition',
  metadata: { name, namespace: 'informer', labels },
  spec: { config },
});

interface Seen {
  readonly type: 'add' | 'update' | 'delete';
  readonly name: string;
  readonly resourceVersion: string;
}

/** An informer over NADs labelled `set=<set>` that records every handler call, list and error. */
function observed(client: KubeClient, set: string, watchIdleMs: number) {
  const seen: Seen[] = [];
  const errors: unknown[] = [];
  const lists: ListCause[] = [];
  const record = (type: Seen['type']) => (object: KubeObject) => {
    seen.push({ type, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion });
  };
  const informer = new Informer<KubeObject>(
    client,
    resourceTypes.networkAttachmentDefinition,
    {
      onAdd: record('add'),
      onUpdate: (_previous, current) => {
        record('update')(current);
      },
      onDelete: record('delete'),
    },
    {
      namespace: 'informer',
      labelSelector: `set=${set}`,
      watchIdleMs,
      backoff: { initialMs: 50, maxMs: 500, factor: 2, jitter: 0.2, attempts: Number.POSITIVE_INFINITY },
      onError: (error) => errors.push(error),
      onList: (cause) => lists.push(cause),
    },
  );
  const converged = async (): Promise<boolean> => {
    const live = await shared.admin.list(resourceTypes.networkAttachmentDefinition, { namespace: 'informer', labelSelector: `set=${set}` });
    const cached = new Map(informer.list().map((object) => [object.metadata.name, object.metadata.resourceVersion]));
    return live.items.length === cached.size && live.items.every((item) => cached.get(item.metadata.name) === item.metadata.resourceVersion);
  };
  /** Create one, update one, delete one: the informer must see each exactly once. */
  const change = async (round: string, update: string, remove: string): Promise<void> => {
    await shared.admin.create(resourceTypes.networkAttachmentDefinition, nad(`${round}-new`, '{}', { set }), { namespace: 'informer' });
    await shared.admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'informer', name: update },
      { spec: { config: `{"round":"${round}"}` } },
      'application/merge-patch+json',
    );
    await shared.admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: 'informer', name: remove });
  };
  const seed = async (names: readonly string[]): Promise<void> => {
    for (const name of names) await shared.admin.create(resourceTypes.networkAttachmentDefinition, nad(name, '{}', { set }), { namespace: 'informer' });
  };
  return { informer, seen, errors, lists, converged, change, seed };
}

/**
 * No change handled twice, and the expected adds, updates and deletes. A delete found by a relist
 * reports the last state the informer had, so it may share its resourceVersion with that add or update.
 */
function expectEachChangeOnce(seen: readonly Seen[], expected: { add: string[]; update: string[]; delete: string[] }): void {
  const pairs = seen.map((event) => `${event.type} ${event.name}@${event.resourceVersion}`);
  expect(new Set(pairs).size).toBe(pairs.length);
  const names = (type: Seen['type']) =>
    seen
      .filter((event) => event.type === type)
      .map((event) => event.name)
      .sort();
  expect({ add: names('add'), update: names('update'), delete: names('delete') }).toEqual({
    add: [...expected.add].sort(),
    update: [...expected.update].sort(),
    delete: [...expected.delete].sort(),
  });
}

describe('Informer', () => {
  it('resumes its watch across an API server restart without relisting, losing or repeating changes', async () => {
    const { informer, seen, errors, lists, converged, change, seed } = observed(shared.admin, 'restart', 20_000);
    await seed(['restart-0', 'restart-1', 'restart-2']);
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.waitForSync();

    await shared.cp.restartApiServer();
    await change('restart', 'restart-0', 'restart-1');
    await waitFor('informer converged after restart', converged, { timeoutMs: 60_000 });
    stop.abort();
    await running;

    expectEachChangeOnce(seen, { add: ['restart-0', 'restart-1', 'restart-2', 'restart-new'], update: ['restart-0'], delete: ['restart-1'] });
    expect(lists).toEqual(['start']);
    expect(errors.filter((error) => isApiError(error, 'Gone'))).toEqual([]);
  }, 120_000);

  it('relists after etcd compaction expires its watch position (410), and only then', async () => {
    // The informer reaches the API server through a proxy that can go silent: its watch then stalls,
    // and changes made meanwhile are known to it only through a resumed watch or a fresh list.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(shared.cp.server).port) });
    const client = shared.cp.adminClientAt(proxy.via(shared.cp.server));
    const { informer, seen, errors, lists, converged, change, seed } = observed(client, 'compaction', 1_000);
    await seed(['compaction-0', 'compaction-1', 'compaction-2', 'compaction-3']);
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    const stalls = (): number => errors.filter((error) => isSriovDraError(error, 'WatchStalled')).length;
    const gone = (from: number): number => errors.slice(from).filter((error) => isApiError(error, 'Gone')).length;
    /** Cuts the informer off while `meanwhile` runs, until its watchdog has given up on the silent watch. */
    const cutOff = async (meanwhile: () => Promise<void>): Promise<void> => {
      const before = stalls();
      proxy.blackhole();
      await meanwhile();
      await waitFor('the silent watch is abandoned', () => Promise.resolve(stalls() > before), { timeoutMs: 30_000 });
    };
    try {
      await informer.waitForSync();

      // Control: cut off while changes happen, nothing compacted. The watch resumes: no 410, no list.
      await cutOff(() => change('uncompacted', 'compaction-0', 'compaction-1'));
      proxy.restore();
      await waitFor('informer converged without compaction', converged, { timeoutMs: 60_000 });
      expect(lists).toEqual(['start']);
      expect(gone(0)).toBe(0);

      // The same, with etcd compacted past the informer's position before it reconnects.
      let beforeCompaction = 0;
      await cutOff(async () => {
        await change('compacted', 'compaction-2', 'compaction-3');
        beforeCompaction = errors.length;
        await shared.cp.compactEtcd();
      });
      proxy.restore();
      await waitFor('informer converged after compaction', converged, { timeoutMs: 60_000 });
      expect(lists).toEqual(['start', 'expired']);
      expect(gone(0)).toBe(1);
      expect(gone(beforeCompaction)).toBe(1);
      expectEachChangeOnce(seen, {
        add: ['compaction-0', 'compaction-1', 'compaction-2', 'compaction-3', 'uncompacted-new', 'compacted-new'],
        update: ['compaction-0', 'compaction-2'],
        delete: ['compaction-1', 'compaction-3'],
      });
    } finally {
      stop.abort();
      await running;
      await proxy.close();
    }
  }, 180_000);
});

describe('Informer watchdog and resync', () => {
  it('reopens a silent watch and replays its store periodically', async () => {
    const errors: unknown[] = [];
    const added: string[] = [];
    let resyncs = 0;
    const informer = new Informer<KubeObject>(
      shared.admin,
      resourceTypes.networkAttachmentDefinition,
      {
        onAdd: (object) => added.push(object.metadata.name),
        onUpdate: (previous, current) => {
          if (previous === current) resyncs += 1;
        },
      },
      { namespace: 'informer', labelSelector: 'watchdog=test', watchIdleMs: 400, resyncMs: 200, onError: (error) => errors.push(error) },
    );
    await shared.admin.create(
      resourceTypes.networkAttachmentDefinition,
      { ...nad('quiet-0', '{}'), metadata: { name: 'quiet-0', namespace: 'informer', labels: { watchdog: 'test' } } },
      { namespace: 'informer' },
    );
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.waitForSync();
    await waitFor(
      'the watchdog abandons a silent watch twice',
      () => Promise.resolve(errors.filter((error) => isSriovDraError(error, 'WatchStalled')).length >= 2),
      {
        timeoutMs: 10_000,
      },
    );
    await shared.admin.create(
      resourceTypes.networkAttachmentDefinition,
      { ...nad('quiet-1', '{}'), metadata: { name: 'quiet-1', namespace: 'informer', labels: { watchdog: 'test' } } },
      { namespace: 'informer' },
    );
    await waitFor('the reopened watch delivers', () => Promise.resolve(added.includes('quiet-1')), { timeoutMs: 10_000 });
    stop.abort();
    await running;
    expect(added).toEqual(['quiet-0', 'quiet-1']);
    expect(resyncs).toBeGreaterThanOrEqual(2);
    expect(errors.every((error) => isSriovDraError(error, 'WatchStalled'))).toBe(true);
  }, 60_000);
});

describe('Informer field selector', () => {
  const podOn = (name: string, nodeName: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'informer', labels: { fieldselector: 'test' } },
    spec: { nodeName, containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
  });

  it('lists and watches only the objects the field selector selects', async () => {
    const added: string[] = [];
    const informer = new Informer<KubeObject>(
      shared.admin,
      resourceTypes.pod,
      { onAdd: (object) => added.push(object.metadata.name) },
      { namespace: 'informer', labelSelector: 'fieldselector=test', fieldSelector: 'spec.nodeName=node-a' },
    );
    await shared.admin.create(resourceTypes.pod, podOn('listed-a', 'node-a'), { namespace: 'informer' });
    await shared.admin.create(resourceTypes.pod, podOn('listed-b', 'node-b'), { namespace: 'informer' });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    try {
      await informer.waitForSync();
      // Events arrive in commit order: once the later node-a Pod is seen, the node-b one was filtered out.
      await shared.admin.create(resourceTypes.pod, podOn('watched-b', 'node-b'), { namespace: 'informer' });
      await shared.admin.create(resourceTypes.pod, podOn('watched-a', 'node-a'), { namespace: 'informer' });
      await waitFor('the node-a Pod is watched', () => Promise.resolve(informer.get('informer/watched-a') !== undefined), { timeoutMs: 10_000 });
    } finally {
      stop.abort();
      await running;
    }
    expect(added).toEqual(['listed-a', 'watched-a']);
    expect(informer.list().map((object) => object.metadata.name)).toEqual(['listed-a', 'watched-a']);
  }, 60_000);
});
