// The two read modes of ADD on a real API server (§10.2, §17.3): the informer reader answers from
// whatever its cache holds, however old; the live reader answers with the API server's current
// objects, one GET per read, and fails rather than fall back to a cache.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type ApiRequest, KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { informerReader } from '../../src/reads/informer-reader.ts';
import { isPodNetworkReadError } from '../../src/reads/pod-network-read-error.ts';
import { readerFor } from '../../src/reads/reader-for.ts';
import { type SharedPodNetworkInformers, createSharedPodNetworkInformers, runSharedPodNetworkInformers } from '../../src/reads/shared-informers.ts';

const NS = 'reads';
const NODE = 'node-reads';

/** Records every request this client sends: one entry per HTTP request issued by the code under test. */
class RecordingClient extends KubeClient {
  readonly sent: string[] = [];
  override request(req: ApiRequest): Promise<unknown> {
    this.sent.push(`${req.method} ${req.path}${req.query === undefined ? '' : ` ${JSON.stringify(req.query)}`}`);
    return super.request(req);
  }
  gets(path: string): string[] {
    return this.sent.filter((line) => line.startsWith(`GET ${path}`) && line.length === `GET ${path}`.length);
  }
}

const podPath = (name: string): string => `/api/v1/namespaces/${NS}/pods/${name}`;
const nadPath = (name: string): string => `/apis/k8s.cni.cncf.io/v1/namespaces/${NS}/network-attachment-definitions/${name}`;

let cp: ControlPlane;
let admin: KubeClient;

async function createPod(name: string, nodeName = NODE, podAnnotations: Record<string, string> = {}): Promise<void> {
  await admin.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS, annotations: podAnnotations },
      spec: { nodeName, containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
    },
    { namespace: NS },
  );
}

async function createNad(name: string): Promise<void> {
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace: NS },
      spec: { config: `{"cniVersion":"1.0.0","name":"${name}","type":"bridge"}` },
    },
    { namespace: NS },
  );
}

/** Shared informers on a recording client, started and synced; `stop` ends their list+watch for good. */
async function startedInformers(): Promise<{ shared: SharedPodNetworkInformers; client: RecordingClient; stop: () => Promise<void> }> {
  const client = new RecordingClient(cp.adminClient.config);
  const shared = createSharedPodNetworkInformers(client, NODE);
  const controller = new AbortController();
  const running = runSharedPodNetworkInformers(shared, controller.signal);
  await Promise.all([shared.pods.waitForSync(), shared.networkAttachmentDefinitions.waitForSync()]);
  return {
    shared,
    client,
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
}, 180_000);

afterAll(async () => {
  await cp.stop();
});

describe('readerFor', () => {
  it('reads the patched Pod and the new NAD live while the informer reader still answers from its cache', async () => {
    await createPod('stale');
    const { shared, client, stop } = await startedInformers();
    const { pods, networkAttachmentDefinitions } = shared;
    await waitFor('the Pod is cached', () => Promise.resolve(pods.get(`${NS}/stale`) !== undefined), { timeoutMs: 10_000 });
    // From here the cache cannot learn anything: what it holds is what an informer that has not yet
    // received the next events holds.
    await stop();

    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'stale' },
      { metadata: { annotations: { [annotations.networks]: 'rail-a' } } },
      'application/merge-patch+json',
    );
    await createNad('rail-a');
    const signal = AbortSignal.timeout(10_000);

    const live = readerFor(true, shared);
    expect(live.mode).toBe('live');
    const livePod = await live.readPod(NS, 'stale', signal);
    expect(livePod.metadata.annotations?.[annotations.networks]).toBe('rail-a');
    const liveNad = await live.readNetworkAttachmentDefinition(NS, 'rail-a', signal);
    expect(liveNad.spec?.config).toBe('{"cniVersion":"1.0.0","name":"rail-a","type":"bridge"}');
    expect(client.gets(podPath('stale'))).toHaveLength(1);
    expect(client.gets(nadPath('rail-a'))).toHaveLength(1);

    const cached = readerFor(false, shared, { pollMs: 10, windowMs: 100 });
    expect(cached.mode).toBe('informer');
    const cachedPod = await cached.readPod(NS, 'stale', signal);
    expect(cachedPod.metadata.annotations?.[annotations.networks]).toBeUndefined();
    await expect(cached.readNetworkAttachmentDefinition(NS, 'rail-a', signal)).rejects.toMatchObject({
      code: 'NetworkAttachmentDefinitionNotFound',
      mode: 'informer',
      message: expect.stringContaining('cannot find a network-attachment-definition (rail-a) in namespace (reads)'),
    });
    // The informer reads sent nothing: no second GET of either object.
    expect(client.gets(podPath('stale'))).toHaveLength(1);
    expect(client.gets(nadPath('rail-a'))).toHaveLength(1);

    // Neither reader replaced or cleared the shared caches.
    expect(shared.pods).toBe(pods);
    expect(shared.networkAttachmentDefinitions).toBe(networkAttachmentDefinitions);
    expect(pods.get(`${NS}/stale`)?.metadata.resourceVersion).toBe(cachedPod.metadata.resourceVersion);
  }, 60_000);
});

describe('the live reader', () => {
  it('sends exactly one GET per read, without a resourceVersion', async () => {
    await createPod('once');
    await createNad('once');
    const client = new RecordingClient(cp.adminClient.config);
    const shared = createSharedPodNetworkInformers(client, NODE);
    const reader = readerFor(true, shared);
    const signal = AbortSignal.timeout(10_000);
    await reader.readPod(NS, 'once', signal);
    await reader.readNetworkAttachmentDefinition(NS, 'once', signal);
    await reader.readPod(NS, 'once', signal);
    expect(client.sent).toEqual([`GET ${podPath('once')}`, `GET ${nadPath('once')}`, `GET ${podPath('once')}`]);
    // The informers were never started by a live read.
    expect(shared.pods.hasSynced()).toBe(false);
  }, 60_000);

  it('fails a failed GET even when the cache holds the object', async () => {
    await createPod('forbidden');
    await createNad('forbidden');
    const { shared, stop } = await startedInformers();
    try {
      await waitFor('the Pod is cached', () => Promise.resolve(shared.pods.get(`${NS}/forbidden`) !== undefined), { timeoutMs: 10_000 });
      await waitFor('the NAD is cached', () => Promise.resolve(shared.networkAttachmentDefinitions.get(`${NS}/forbidden`) !== undefined), {
        timeoutMs: 10_000,
      });
      const denied = readerFor(true, { ...shared, client: cp.clientFor('nobody') });
      const signal = AbortSignal.timeout(10_000);
      await expect(denied.readPod(NS, 'forbidden', signal)).rejects.toMatchObject({ code: 'PodReadFailed', mode: 'live', cause: { code: 'ApiForbidden' } });
      await expect(denied.readNetworkAttachmentDefinition(NS, 'forbidden', signal)).rejects.toMatchObject({
        code: 'NetworkAttachmentDefinitionReadFailed',
        cause: { code: 'ApiForbidden' },
      });
    } finally {
      await stop();
    }
  }, 60_000);

  it('reports missing objects as not found', async () => {
    const reader = readerFor(true, createSharedPodNetworkInformers(admin, NODE));
    const signal = AbortSignal.timeout(10_000);
    const pod = await reader.readPod(NS, 'absent', signal).catch((error: unknown) => error);
    expect(isPodNetworkReadError(pod, 'PodNotFound')).toBe(true);
    await expect(reader.readNetworkAttachmentDefinition(NS, 'absent', signal)).rejects.toMatchObject({
      code: 'NetworkAttachmentDefinitionNotFound',
      mode: 'live',
      message: expect.stringContaining('cannot find a network-attachment-definition (absent) in namespace (reads)'),
    });
  }, 60_000);
});

describe('the informer reader', () => {
  it('waits for a Pod the cache does not have yet instead of reading it live', async () => {
    await createPod('late');
    const client = new RecordingClient(cp.adminClient.config);
    const shared = createSharedPodNetworkInformers(client, NODE);
    // The read starts before the informer has listed anything; the Pod reaches the cache with its first list.
    const reading = informerReader(shared, { pollMs: 10, windowMs: 60_000 }).readPod(NS, 'late', AbortSignal.timeout(60_000));
    const controller = new AbortController();
    const running = runSharedPodNetworkInformers(shared, controller.signal);
    try {
      const pod = await reading;
      expect(pod.metadata.name).toBe('late');
      expect(client.gets(podPath('late'))).toEqual([]);
    } finally {
      controller.abort();
      await running;
    }
  }, 90_000);

  it('in a daemon reading live by its configuration, lists NADs only at the first informer read, which waits for that listing', async () => {
    await createNad('on-demand');
    const client = new RecordingClient(cp.adminClient.config);
    const shared = createSharedPodNetworkInformers(client, NODE);
    const controller = new AbortController();
    const running = runSharedPodNetworkInformers(shared, controller.signal, 'on-first-read');
    const nadListings = (): string[] => client.sent.filter((line) => line.startsWith('GET /apis/k8s.cni.cncf.io/v1/network-attachment-definitions'));
    try {
      await shared.pods.waitForSync();
      expect({ watching: shared.watchingNetworkAttachmentDefinitions(), listings: nadListings() }).toEqual({ watching: false, listings: [] });
      // Read at once: an empty, never-listed cache would answer "cannot find".
      const nad = await informerReader(shared).readNetworkAttachmentDefinition(NS, 'on-demand', AbortSignal.timeout(30_000));
      expect(nad.metadata.name).toBe('on-demand');
      expect({ watching: shared.watchingNetworkAttachmentDefinitions(), listings: nadListings().length }).toEqual({ watching: true, listings: 1 });
    } finally {
      controller.abort();
      await running;
    }
  }, 60_000);

  it('reads a Pod the cache never gets with one live GET after its window', async () => {
    // On another node: outside the field selector, so never in this node's cache.
    await createPod('elsewhere', 'node-other');
    const { shared, client, stop } = await startedInformers();
    try {
      const reader = informerReader(shared, { pollMs: 10, windowMs: 200 });
      const signal = AbortSignal.timeout(10_000);
      const pod = await reader.readPod(NS, 'elsewhere', signal);
      expect(pod.spec.nodeName).toBe('node-other');
      expect(shared.pods.get(`${NS}/elsewhere`)).toBeUndefined();
      expect(client.gets(podPath('elsewhere'))).toHaveLength(1);

      await expect(reader.readPod(NS, 'nowhere', signal)).rejects.toMatchObject({ code: 'PodNotFound', mode: 'informer' });
      expect(client.gets(podPath('nowhere'))).toHaveLength(1);
    } finally {
      await stop();
    }
  }, 60_000);
});
