// Integration tests on a real kube-apiserver: JSON Patch preconditions, finalizer removal and the
// driver's RBAC (the CRD schemas are tested in crd-schemas.spec.ts). Nothing here is mocked; a lost
// response is simulated by performing the real request and then discarding its reply.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations, isSriovDraError } from '@sriov-dra/contract';
import { KubeApiError, isApiError } from '../src/api-errors.ts';
import { KubeClient, type KubeObject } from '../src/client.ts';
import { removeFinalizer } from '../src/finalizers.ts';
import { patchGuarded } from '../src/guarded-patch.ts';
import { annotationChanges, identityPreconditions } from '../src/json-patch.ts';
import { resourceTypes } from '../src/resources.ts';
import { DRIVER_CHART_DIR, createRendered, renderChartTemplate } from '../src/testing/index.ts';

import { createNamespace, createPod, ownedNad, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'ai-workloads' });

/** An admin client that records the HTTP method of every request it sends. */
function recordingMethods(): { client: KubeClient; methods: string[] } {
  const methods: string[] = [];
  const client = new (class extends KubeClient {
    override async request(...args: Parameters<KubeClient['request']>): Promise<unknown> {
      methods.push(args[0].method);
      return super.request(...args);
    }
  })(shared.admin.config, { qps: 1_000, burst: 1_000 });
  return { client, methods };
}

/** Performs every request for real, then loses the reply of the chosen ones. */
class ReplyDroppingClient extends KubeClient {
  dropped = 0;
  private readonly drop: (method: string) => boolean;
  constructor(base: KubeClient, drop: (method: string) => boolean) {
    super(base.config, { qps: 1_000, burst: 1_000 });
    this.drop = drop;
  }
  override async request(...args: Parameters<KubeClient['request']>): Promise<unknown> {
    const result = await super.request(...args);
    if (this.drop(args[0].method) && this.dropped === 0) {
      this.dropped += 1;
      throw new KubeApiError('Timeout', 0, { method: args[0].method, path: args[0].path }, undefined, { outcomeUnknown: true });
    }
    return result;
  }
}

/** Lets another writer land just before the first PATCH this client sends. */
class InterleavingClient extends KubeClient {
  private interloper: (() => Promise<unknown>) | undefined;
  constructor(base: KubeClient, interloper: () => Promise<unknown>) {
    super(base.config, { qps: 1_000, burst: 1_000 });
    this.interloper = interloper;
  }
  override async patch<T extends KubeObject>(...args: Parameters<KubeClient['patch']>): Promise<T> {
    const interloper = this.interloper;
    this.interloper = undefined;
    if (interloper !== undefined) await interloper();
    return super.patch<T>(...args);
  }
}

describe('JSON Patch with identity preconditions', () => {
  it('a failed test returns 422 and writes nothing', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'stale-patch');
    await shared.admin.patch(
      resourceTypes.pod,
      { namespace: 'ai-workloads', name: 'stale-patch' },
      { metadata: { labels: { moved: 'on' } } },
      'application/merge-patch+json',
    );
    const error = await shared.admin
      .patch(
        resourceTypes.pod,
        { namespace: 'ai-workloads', name: 'stale-patch' },
        [...identityPreconditions(pod.metadata), ...annotationChanges(undefined, { a: 'b' })],
        'application/json-patch+json',
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(422);
    expect((error as KubeApiError).kind).toBe('Invalid');
    const live = await shared.admin.get(resourceTypes.pod, { namespace: 'ai-workloads', name: 'stale-patch' });
    expect(live.metadata.annotations).toBeUndefined();
  });

  it('re-reads and recomputes after losing a race, creating a missing annotations map', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'racing');
    const interleaving = new InterleavingClient(shared.admin, () =>
      shared.admin.patch(
        resourceTypes.pod,
        { namespace: 'ai-workloads', name: 'racing' },
        { metadata: { annotations: { other: 'writer' } } },
        'application/merge-patch+json',
      ),
    );
    const seen: (Readonly<Record<string, string>> | undefined)[] = [];
    const result = await patchGuarded<KubeObject>(
      interleaving,
      resourceTypes.pod,
      { namespace: 'ai-workloads', name: 'racing', uid: pod.metadata.uid },
      (live) => {
        seen.push(live.metadata.annotations);
        return annotationChanges(live.metadata.annotations, { [annotations.networks]: '[]' });
      },
    );
    interleaving.close();
    // First computed from a Pod without annotations (an "add the map" patch, rejected by its test),
    // then recomputed from the other writer's state.
    expect(seen).toEqual([undefined, { other: 'writer' }]);
    expect(result).toMatchObject({ changed: true, attempts: 2 });
    expect(result.object.metadata.annotations).toEqual({ other: 'writer', [annotations.networks]: '[]' });
  });

  it("patches against the caller's fresh copy without reading again, and re-reads only when that copy is stale", async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'current-copy');
    const { client: counting, methods } = recordingMethods();
    const at = { namespace: 'ai-workloads', name: 'current-copy', uid: pod.metadata.uid };
    const fresh = await patchGuarded<KubeObject>(counting, resourceTypes.pod, at, (live) => annotationChanges(live.metadata.annotations, { first: 'write' }), {
      current: pod,
    });
    expect(methods).toEqual(['PATCH']);
    expect(fresh).toMatchObject({ changed: true, attempts: 1 });
    // `pod` now predates the first write: its resourceVersion test fails once, then a re-read wins.
    methods.length = 0;
    const stale = await patchGuarded<KubeObject>(counting, resourceTypes.pod, at, (live) => annotationChanges(live.metadata.annotations, { second: 'write' }), {
      current: pod,
      backoff: { initialMs: 1, maxMs: 1, factor: 1, jitter: 0, attempts: 3 },
    });
    counting.close();
    expect(methods).toEqual(['PATCH', 'GET', 'PATCH']);
    expect(stale.object.metadata.annotations).toEqual({ first: 'write', second: 'write' });
  });

  it('revalidates before every attempt that reads the object again, and sends nothing once revalidation refuses', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'revalidated');
    const at = { namespace: 'ai-workloads', name: 'revalidated', uid: pod.metadata.uid };
    const interleaving = new InterleavingClient(shared.admin, () =>
      shared.admin.patch(
        resourceTypes.pod,
        { namespace: 'ai-workloads', name: 'revalidated' },
        { metadata: { labels: { moved: 'on' } } },
        'application/merge-patch+json',
      ),
    );
    let revalidations = 0;
    // The caller's own copy is not revalidated; the re-read after the lost race is, and the refusal ends it.
    const refused = await patchGuarded<KubeObject>(interleaving, resourceTypes.pod, at, (live) => annotationChanges(live.metadata.annotations, { a: 'b' }), {
      current: pod,
      revalidate: () => {
        revalidations += 1;
        return Promise.reject(new Error('the write no longer holds'));
      },
      backoff: { initialMs: 1, maxMs: 1, factor: 1, jitter: 0, attempts: 3 },
    }).catch((error: unknown) => error);
    interleaving.close();
    expect([revalidations, (refused as Error).message]).toEqual([1, 'the write no longer holds']);
    expect((await shared.admin.get(resourceTypes.pod, { namespace: 'ai-workloads', name: 'revalidated' })).metadata.annotations).toBeUndefined();

    // Without a copy of the caller's, the first read is revalidated too.
    revalidations = 0;
    const written = await patchGuarded<KubeObject>(shared.admin, resourceTypes.pod, at, (live) => annotationChanges(live.metadata.annotations, { a: 'b' }), {
      revalidate: () => {
        revalidations += 1;
        return Promise.resolve();
      },
    });
    expect([revalidations, written.changed]).toEqual([1, true]);
  });

  it('escapes "/" in annotation keys and removes only the named keys', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'escaping', { annotations: { keep: 'me', drop: 'me', [annotations.networks]: 'old' } });
    const result = await patchGuarded<KubeObject>(
      shared.admin,
      resourceTypes.pod,
      { namespace: 'ai-workloads', name: 'escaping', uid: pod.metadata.uid },
      (live) => annotationChanges(live.metadata.annotations, { [annotations.networks]: 'new', [annotations.managedNetworks]: '{}', drop: null }),
    );
    expect(result.object.metadata.annotations).toEqual({ keep: 'me', [annotations.networks]: 'new', [annotations.managedNetworks]: '{}' });
  });

  it('reports a replaced object (same name, new UID) and writes nothing', async () => {
    const old = await createPod(shared.admin, 'ai-workloads', 'replaced');
    await shared.admin.delete(resourceTypes.pod, { namespace: 'ai-workloads', name: 'replaced' }, { gracePeriodSeconds: 0 });
    await createPod(shared.admin, 'ai-workloads', 'replaced');
    const outcome = patchGuarded<KubeObject>(shared.admin, resourceTypes.pod, { namespace: 'ai-workloads', name: 'replaced', uid: old.metadata.uid }, (live) =>
      annotationChanges(live.metadata.annotations, { x: 'y' }),
    );
    expect(isSriovDraError(await outcome.catch((caught: unknown) => caught), 'ObjectReplaced')).toBe(true);
    const live = await shared.admin.get(resourceTypes.pod, { namespace: 'ai-workloads', name: 'replaced' });
    expect(live.metadata.annotations).toBeUndefined();
  });

  it('returns a genuinely invalid patch as final instead of retrying it', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'invalid-patch');
    let computations = 0;
    const outcome = patchGuarded<KubeObject>(
      shared.admin,
      resourceTypes.pod,
      { namespace: 'ai-workloads', name: 'invalid-patch', uid: pod.metadata.uid },
      (live) => {
        computations += 1;
        return annotationChanges(live.metadata.annotations, { 'not/a/valid/key': 'x' });
      },
    );
    await expect(outcome).rejects.toMatchObject({ kind: 'Invalid', status: 422 });
    expect(computations).toBe(1);
  });

  it('settles a lost response by re-reading: the change is not applied twice', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'lost-reply');
    const dropping = new ReplyDroppingClient(shared.admin, (method) => method === 'PATCH');
    const result = await patchGuarded<KubeObject>(
      dropping,
      resourceTypes.pod,
      { namespace: 'ai-workloads', name: 'lost-reply', uid: pod.metadata.uid },
      (live) => annotationChanges(live.metadata.annotations, { applied: 'once' }),
    );
    dropping.close();
    expect(dropping.dropped).toBe(1);
    expect(result.changed).toBe(false);
    expect(result.object.metadata.annotations).toEqual({ applied: 'once' });
  });
});

describe('finalizer removal', () => {
  const foreign = ['example.com/backup-protection', 'example.com/audit'];

  it('removes only its own finalizer and keeps foreign ones in order', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'owner-a');
    const nad = await shared.admin.create(
      resourceTypes.networkAttachmentDefinition,
      ownedNad(pod, 'shadow-a', [foreign[0] ?? '', ATTACHMENT_PROTECTION_FINALIZER, foreign[1] ?? '']),
      {
        namespace: 'ai-workloads',
      },
    );
    const at = { namespace: 'ai-workloads', name: 'shadow-a', uid: nad.metadata.uid };
    expect(await removeFinalizer(shared.admin, resourceTypes.networkAttachmentDefinition, at, ATTACHMENT_PROTECTION_FINALIZER)).toBe('removed');
    const live = await shared.admin.get(resourceTypes.networkAttachmentDefinition, at);
    expect(live.metadata.finalizers).toEqual(foreign);
    expect(await removeFinalizer(shared.admin, resourceTypes.networkAttachmentDefinition, at, ATTACHMENT_PROTECTION_FINALIZER)).toBe('absent');
  });

  it('resolves a lost response by re-reading', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'owner-b');
    const nad = await shared.admin.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'shadow-b', [ATTACHMENT_PROTECTION_FINALIZER, ...foreign]), {
      namespace: 'ai-workloads',
    });
    const dropping = new ReplyDroppingClient(shared.admin, (method) => method === 'PATCH');
    const at = { namespace: 'ai-workloads', name: 'shadow-b', uid: nad.metadata.uid };
    expect(await removeFinalizer(dropping, resourceTypes.networkAttachmentDefinition, at, ATTACHMENT_PROTECTION_FINALIZER)).toBe('absent');
    dropping.close();
    expect(dropping.dropped).toBe(1);
    expect((await shared.admin.get(resourceTypes.networkAttachmentDefinition, at)).metadata.finalizers).toEqual(foreign);
  });

  it('removes the finalizer against the copy the DELETE answered without reading again', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'owner-d');
    const nad = await shared.admin.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'shadow-d', [ATTACHMENT_PROTECTION_FINALIZER, ...foreign]), {
      namespace: 'ai-workloads',
    });
    const at = { namespace: 'ai-workloads', name: 'shadow-d', uid: nad.metadata.uid };
    const terminating = (await shared.admin.delete(resourceTypes.networkAttachmentDefinition, at, { uid: nad.metadata.uid })) as KubeObject;
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    const { client: counting, methods } = recordingMethods();
    expect(await removeFinalizer(counting, resourceTypes.networkAttachmentDefinition, at, ATTACHMENT_PROTECTION_FINALIZER, { current: terminating })).toBe(
      'removed',
    );
    counting.close();
    expect(methods).toEqual(['PATCH']);
    expect((await shared.admin.get(resourceTypes.networkAttachmentDefinition, at)).metadata.finalizers).toEqual(foreign);
  });

  it('treats a vanished object as done and refuses a replacement', async () => {
    expect(
      await removeFinalizer(
        shared.admin,
        resourceTypes.networkAttachmentDefinition,
        { namespace: 'ai-workloads', name: 'never-existed', uid: '00000000-0000-0000-0000-000000000001' },
        ATTACHMENT_PROTECTION_FINALIZER,
      ),
    ).toBe('gone');
    const pod = await createPod(shared.admin, 'ai-workloads', 'owner-c');
    await shared.admin.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'shadow-c', [ATTACHMENT_PROTECTION_FINALIZER]), {
      namespace: 'ai-workloads',
    });
    const outcome = removeFinalizer(
      shared.admin,
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'ai-workloads', name: 'shadow-c', uid: '00000000-0000-0000-0000-000000000002' },
      ATTACHMENT_PROTECTION_FINALIZER,
    );
    expect(isSriovDraError(await outcome.catch((caught: unknown) => caught), 'ObjectReplaced')).toBe(true);
  });
});

describe('driver RBAC (§12.3) from the chart, with a real ServiceAccount token', () => {
  let driver: KubeClient;

  beforeAll(async () => {
    await createNamespace(shared.admin, 'dra-driver-sriov');
    await createNamespace(shared.admin, 'infra');
    await shared.admin.create(
      resourceTypes.serviceAccount,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'dra-driver-sriov' } },
      { namespace: 'dra-driver-sriov' },
    );
    await createRendered(
      shared.admin,
      renderChartTemplate(DRIVER_CHART_DIR, 'managed-networks-rbac.yaml', {
        namespace: 'dra-driver-sriov',
        values: { configurationMode: 'MULTUS', multusAutoAttach: true },
      }),
      'dra-driver-sriov',
    );
    const request = (await shared.admin.request({
      method: 'POST',
      path: '/api/v1/namespaces/dra-driver-sriov/serviceaccounts/dra-driver-sriov/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    })) as { status: { token: string } };
    driver = shared.cp.clientWithToken(request.status.token);
  }, 60_000);

  it('creates a protected, Pod-owned shadow in one Create, patches the Pod and lists NADs cluster-wide', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'rbac-consumer');
    const shadow = await driver.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'rbac-shadow', [ATTACHMENT_PROTECTION_FINALIZER]), {
      namespace: 'ai-workloads',
    });
    expect(shadow.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
    expect(shadow.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: pod.metadata.uid, blockOwnerDeletion: false })]);
    await patchGuarded<KubeObject>(driver, resourceTypes.pod, { namespace: 'ai-workloads', name: 'rbac-consumer', uid: pod.metadata.uid }, (live) =>
      annotationChanges(live.metadata.annotations, { [annotations.networks]: '[{"name":"rbac-shadow","namespace":"ai-workloads"}]' }),
    );
    await driver.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'second', []), { namespace: 'ai-workloads' });
    const all = await driver.list(resourceTypes.networkAttachmentDefinition);
    expect(all.items.map((item) => `${item.metadata.namespace ?? ''}/${item.metadata.name}`)).toEqual(
      expect.arrayContaining(['ai-workloads/rbac-shadow', 'ai-workloads/second']),
    );
    expect(
      await removeFinalizer(
        driver,
        resourceTypes.networkAttachmentDefinition,
        { namespace: 'ai-workloads', name: 'rbac-shadow', uid: shadow.metadata.uid },
        ATTACHMENT_PROTECTION_FINALIZER,
      ),
    ).toBe('removed');
  });

  it('may own a shadow by its Pod only with blockOwnerDeletion false: true needs pods/finalizers, which it lacks', async () => {
    const pod = await createPod(shared.admin, 'ai-workloads', 'rbac-blocking-owner');
    const blocking = await driver
      .create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'rbac-blocking', [ATTACHMENT_PROTECTION_FINALIZER], true), {
        namespace: 'ai-workloads',
      })
      .catch((caught: unknown) => caught);
    expect(isApiError(blocking) ? blocking.kind : blocking).toBe('Forbidden');
    const nonBlocking = await driver.create(
      resourceTypes.networkAttachmentDefinition,
      ownedNad(pod, 'rbac-non-blocking', [ATTACHMENT_PROTECTION_FINALIZER], false),
      { namespace: 'ai-workloads' },
    );
    expect(nonBlocking.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: pod.metadata.uid, blockOwnerDeletion: false })]);
    // The blocking reference itself is valid: whoever may update the Pod's finalizers can set it.
    const byAdmin = await shared.admin.create(resourceTypes.networkAttachmentDefinition, ownedNad(pod, 'admin-blocking', [], true), {
      namespace: 'ai-workloads',
    });
    expect(byAdmin.metadata.ownerReferences).toEqual([expect.objectContaining({ blockOwnerDeletion: true })]);
  });

  it.each([
    // Listing and watching Pods is granted: the repair worker watches its node's (spec.nodeName field
    // selector), which RBAC cannot narrow further. Deleting them all at once is not.
    ['delete every Pod of a namespace', () => driver.request({ method: 'DELETE', path: '/api/v1/namespaces/ai-workloads/pods' })],
    ['delete a Pod', () => driver.delete(resourceTypes.pod, { namespace: 'ai-workloads', name: 'rbac-consumer' })],
    [
      'create a Pod',
      () =>
        driver.create(
          resourceTypes.pod,
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          { namespace: 'ai-workloads' },
        ),
    ],
    [
      'update a Pod',
      async () => {
        const live = await shared.admin.get(resourceTypes.pod, { namespace: 'ai-workloads', name: 'rbac-consumer' });
        return driver.request({ method: 'PUT', path: '/api/v1/namespaces/ai-workloads/pods/rbac-consumer', body: live });
      },
    ],
    [
      "update a Pod's finalizers",
      async () => {
        const live = await shared.admin.get(resourceTypes.pod, { namespace: 'ai-workloads', name: 'rbac-consumer' });
        return driver.request({ method: 'PUT', path: '/api/v1/namespaces/ai-workloads/pods/rbac-consumer/finalizers', body: live });
      },
    ],
    ['read Secrets', () => driver.request({ method: 'GET', path: '/api/v1/namespaces/infra/secrets' })],
    ['list Namespaces', () => driver.list(resourceTypes.namespace)],
    [
      'write SriovNetworks',
      () =>
        driver.create(
          resourceTypes.sriovNetwork,
          { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name: 'x' }, spec: { resourceName: 'r' } },
          { namespace: 'infra' },
        ),
    ],
  ])('is Forbidden to %s', async (_case, call) => {
    const error = await call().catch((caught: unknown) => caught);
    expect(isApiError(error) ? error.kind : error).toBe('Forbidden');
  });
});
