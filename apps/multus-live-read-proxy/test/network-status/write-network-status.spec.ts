// writeNetworkStatus on a real API server, as a user allowed only to get Pods and patch pods/status.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, type Pod, type ResourceType, contentTypes, podSchema, readPod, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createRoleBinding, startControlPlane } from '@sriov-dra/k8s/testing';
import { type NetworkStatus, serializeNetworkStatuses, writeNetworkStatus } from '../../src/network-status.ts';

const NS = 'status';
const USER = 'multus-status-writer';
const STATUSES: NetworkStatus[] = [{ name: 'status/rail-a', interface: 'net1', ips: ['10.0.0.5'], mac: '02:00:00:00:00:01', dns: {} }];

let cp: ControlPlane;
let admin: KubeClient;

async function createPod(name: string): Promise<Pod> {
  const created = await admin.create(
    resourceTypes.pod,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] } },
    { namespace: NS },
  );
  return podSchema.parse(created);
}

/** The status writer's client; before its first patch it lets another writer change the Pod. */
function writerWithInterleavedWrite(): { client: KubeClient; interleaved: () => number } {
  const client = cp.clientFor(USER);
  let interleaved = 0;
  const patch = client.patch.bind(client);
  client.patch = async <T extends KubeObject>(type: ResourceType, at: { namespace?: string; name: string }, body: unknown, contentType: string) => {
    if (interleaved === 0) {
      interleaved += 1;
      await admin.patch(type, { ...at, subresource: undefined }, { metadata: { annotations: { concurrent: 'writer' } } }, contentTypes.mergePatch);
    }
    return patch<T>(type, at, body, contentType);
  };
  return { client, interleaved: () => interleaved };
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await createNamespace(admin, NS);
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: USER },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      // As the chart grants: a status writer need not read the status subresource.
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    ],
  });
  await createRoleBinding(admin, {
    metadata: { name: USER },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: USER },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  });
}, 180_000);

afterAll(async () => {
  await cp.stop();
});

describe('writeNetworkStatus', () => {
  it('sets the annotation through pods/status', async () => {
    const pod = await createPod('plain');
    const write = await writeNetworkStatus(cp.clientFor(USER), pod, STATUSES, AbortSignal.timeout(10_000));
    expect(write).toEqual({ written: true, attempts: 1 });
    const live = await readPod(admin, NS, 'plain');
    expect(live.metadata.annotations?.[annotations.networkStatus]).toBe(serializeNetworkStatuses(STATUSES));
    expect(JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '')).toEqual([
      { name: 'status/rail-a', interface: 'net1', ips: ['10.0.0.5'], mac: '02:00:00:00:00:01', dns: {} },
    ]);
  }, 60_000);

  it('recomputes from a fresh read when another writer changed the Pod in between', async () => {
    const pod = await createPod('raced');
    const { client, interleaved } = writerWithInterleavedWrite();
    const write = await writeNetworkStatus(client, pod, STATUSES, AbortSignal.timeout(10_000));
    expect(interleaved()).toBe(1);
    expect(write).toEqual({ written: true, attempts: 2 });
    const live = await readPod(admin, NS, 'raced');
    expect(live.metadata.annotations?.['concurrent']).toBe('writer');
    expect(live.metadata.annotations?.[annotations.networkStatus]).toBe(serializeNetworkStatuses(STATUSES));
  }, 60_000);

  it('refuses a Pod replaced under the same name, and writes nothing to the replacement', async () => {
    const original = await createPod('replaced');
    await admin.delete(resourceTypes.pod, { namespace: NS, name: 'replaced' }, { gracePeriodSeconds: 0 });
    const replacement = await createPod('replaced');
    await expect(writeNetworkStatus(cp.clientFor(USER), original, STATUSES, AbortSignal.timeout(10_000))).rejects.toMatchObject({ code: 'ObjectReplaced' });
    const live = await readPod(admin, NS, 'replaced');
    expect(live.metadata.uid).toBe(replacement.metadata.uid);
    expect(live.metadata.annotations?.[annotations.networkStatus]).toBeUndefined();
  }, 60_000);

  it('writes nothing without statuses', async () => {
    const pod = await createPod('empty');
    expect(await writeNetworkStatus(cp.clientFor(USER), pod, [], AbortSignal.timeout(10_000))).toEqual({ written: false, attempts: 0 });
    expect((await readPod(admin, NS, 'empty')).metadata.annotations?.[annotations.networkStatus]).toBeUndefined();
  }, 60_000);
});
