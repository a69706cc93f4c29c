// The informer on a real API server: it converges after a kube-apiserver restart and after its watch
// position expires (410 Gone), without missing or repeating a change.
import { describe, expect, it } from '@jest/globals';
import { isApiError } from '../src/api-errors.ts';
import type { KubeObject } from '../src/client.ts';
import { Informer, WatchIdleError } from '../src/informer.ts';
import { resourceTypes } from '../src/resources.ts';
import { type ControlPlane, waitFor } from '../src/testing/index.ts';
import { useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'informer' });

const nad = (name: string, config: string) => ({
  apiVersion: 'k8s.cni.cncf.io/v1',
  kind: 'NetworkAttachmentDefinition',
  metadata: { name, namespace: 'informer' },
  spec: { config },
});

interface Seen {
  readonly type: 'add' | 'update' | 'delete';
  readonly name: string;
  readonly resourceVersion: string;
}

describe('Informer', () => {
  it('survives an API server restart and a 410 without losing or repeating changes', async () => {
    const seen: Seen[] = [];
    const errors: unknown[] = [];
    const record = (type: Seen['type']) => (object: KubeObject) => {
      seen.push({ type, name: object.metadata.name, resourceVersion: object.metadata.resourceVersion });
    };
    const informer = new Informer<KubeObject>(
      shared.admin,
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
        watchIdleMs: 20_000,
        backoff: { initialMs: 50, maxMs: 500, factor: 2, jitter: 0.2, attempts: Number.POSITIVE_INFINITY },
        onError: (error) => errors.push(error),
      },
    );
    const stop = new AbortController();
    for (let i = 0; i < 5; i += 1) await shared.admin.create(resourceTypes.networkAttachmentDefinition, nad(`before-${i}`, '{}'), { namespace: 'informer' });
    const running = informer.run(stop.signal);
    await informer.waitForSync();
    expect(informer.list()).toHaveLength(5);

    await shared.cp.restartApiServer();
    // Changes made while the informer reconnects: create, update, delete.
    for (let i = 0; i < 5; i += 1) await shared.admin.create(resourceTypes.networkAttachmentDefinition, nad(`after-${i}`, '{}'), { namespace: 'informer' });
    await shared.admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'informer', name: 'before-0' },
      { spec: { config: '{"v":2}' } },
      'application/merge-patch+json',
    );
    await shared.admin.delete(resourceTypes.networkAttachmentDefinition, { namespace: 'informer', name: 'before-1' });

    const converged = async (): Promise<boolean> => {
      const live = await shared.admin.list(resourceTypes.networkAttachmentDefinition, { namespace: 'informer' });
      const cached = new Map(informer.list().map((object) => [object.metadata.name, object.metadata.resourceVersion]));
      return live.items.length === cached.size && live.items.every((item) => cached.get(item.metadata.name) === item.metadata.resourceVersion);
    };
    await waitFor('informer converged after restart', converged, { timeoutMs: 60_000 });

    // Force an expired watch position: the next watch starts from a resourceVersion etcd has compacted.
    await compactEtcd(shared.cp);
    await shared.cp.restartApiServer();
    await shared.admin.create(resourceTypes.networkAttachmentDefinition, nad('after-compaction', '{}'), { namespace: 'informer' });
    await waitFor('informer converged after compaction', converged, { timeoutMs: 60_000 });

    stop.abort();
    await running;

    // Every change observed once: no (name, resourceVersion) pair twice, one add per object, one delete.
    const pairs = seen.map((event) => `${event.name}@${event.resourceVersion}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    const adds = seen
      .filter((event) => event.type === 'add')
      .map((event) => event.name)
      .sort();
    expect(adds).toEqual([...[0, 1, 2, 3, 4].flatMap((i) => [`after-${i}`, `before-${i}`]), 'after-compaction'].sort());
    expect(seen.filter((event) => event.type === 'delete').map((event) => event.name)).toEqual(['before-1']);
    expect(seen.filter((event) => event.type === 'update').map((event) => event.name)).toEqual(['before-0']);
    expect(errors.some((error) => isApiError(error, 'Gone'))).toBe(true);
    expect(informer.lists).toBeGreaterThanOrEqual(2);
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
    await waitFor('the watchdog abandons a silent watch twice', () => Promise.resolve(errors.filter((error) => error instanceof WatchIdleError).length >= 2), {
      timeoutMs: 10_000,
    });
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
    expect(errors.every((error) => error instanceof WatchIdleError)).toBe(true);
  }, 60_000);
});

/** Compacts etcd to its current revision through its HTTP gateway, so every older revision is gone. */
async function compactEtcd(controlPlane: ControlPlane): Promise<void> {
  const endpoint = controlPlane.etcdEndpoint;
  const status = (await (
    await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) })
  ).json()) as {
    header: { revision: string };
  };
  const response = await fetch(`${endpoint}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision: status.header.revision, physical: true }) });
  if (!response.ok) throw new Error(`etcd compaction failed: ${response.status}`);
}
