// The test control plane itself: the pinned version answers, every component runs healthy with the
// configured feature gates, the admission plugins the driver's behaviour depends on are on, and stop()
// leaves no process and no listening port behind.
import { type AddressInfo, connect, createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { KubeClient, type KubeObject } from '../src/client.ts';
import { resourceTypes } from '../src/resources.ts';
import { DEFAULT_K8S_VERSION, isProcessAlive as alive, createNamespace, freePort, httpsGetText, startControlPlane } from '../src/testing/index.ts';

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      resolve(true);
    });
  });
}

// Beta and on by default in v1.36; turned off here so that only a passed flag can explain the value.
const GATE = 'DRASchedulerFilterTimeout';

describe('startControlPlane', () => {
  it('runs the pinned Kubernetes with every component healthy, feature gates and admission plugins applied, and cleans up completely', async () => {
    const cp = await startControlPlane({ controllerManager: true, scheduler: true, featureGates: { [GATE]: false } });
    try {
      const version = (await cp.adminClient.request({ method: 'GET', path: '/version' })) as { gitVersion: string };
      expect(version.gitVersion).toBe(process.env['K8S_VERSION'] ?? DEFAULT_K8S_VERSION);
      const components = cp.components();
      expect(components.map((component) => component.name)).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
      expect(components.map((component) => component.pid ?? -1).every(alive)).toBe(true);

      // Healthy as soon as startControlPlane resolves: the start waited for them, not the test.
      const [controllerManager, scheduler] = ['kube-controller-manager', 'kube-scheduler'].map(
        (name) => `https://127.0.0.1:${String(components.find((component) => component.name === name)?.port)}`,
      );
      expect(await httpsGetText(`${controllerManager ?? ''}/healthz`, cp.caCert)).toBe('ok');
      expect(await httpsGetText(`${scheduler ?? ''}/readyz`, cp.caCert)).toBe('ok');

      // Every component reports the gate as the test set it.
      const enabled = (metrics: string): string | undefined =>
        new RegExp(`^kubernetes_feature_enabled\\{name="${GATE}",[^}]*\\} (\\d)$`, 'm').exec(metrics)?.[1];
      const apiMetrics = String(await cp.adminClient.request({ method: 'GET', path: '/metrics' }));
      expect([
        enabled(apiMetrics),
        enabled(await httpsGetText(`${controllerManager ?? ''}/metrics`, cp.caCert)),
        enabled(await httpsGetText(`${scheduler ?? ''}/metrics`, cp.caCert)),
      ]).toEqual(['0', '0', '0']);

      // ServiceAccount admission runs: a Pod gets its namespace's default ServiceAccount and token volume.
      await createNamespace(cp.adminClient, 'admission');
      const pod = await cp.adminClient.create<KubeObject & { spec: { serviceAccountName?: string; volumes?: { name: string }[] } }>(
        resourceTypes.pod,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'registry.invalid/c:1' }] } },
        { namespace: 'admission' },
      );
      expect(pod.spec.serviceAccountName).toBe('default');
      expect(pod.spec.volumes?.map((volume) => volume.name)).toEqual([expect.stringMatching(/^kube-api-access-/)]);
    } finally {
      const pids = cp.components().map((component) => component.pid ?? -1);
      const endpoints = [cp.server, cp.etcdEndpoint];
      await cp.stop();
      expect(pids.filter(alive)).toEqual([]);
      expect(await Promise.all(endpoints.map(refused))).toEqual([true, true]);
    }
  }, 180_000);

  it('audits every request at the API server with its user, user agent, object and response code', async () => {
    const cp = await startControlPlane({ audit: true });
    try {
      const auditor = KubeClient.fromKubeConfig(cp.kubeconfigFor('auditor', { groups: ['system:masters'] }), { userAgent: 'audit-probe/1' });
      try {
        await auditor.get(resourceTypes.namespace, { name: 'default' });
        await expect(auditor.get(resourceTypes.namespace, { name: 'absent' })).rejects.toThrow();
      } finally {
        auditor.close();
      }
      const requests = (await cp.auditLog?.requests()) ?? [];
      expect(
        requests
          .filter((event) => event.user.username === 'auditor')
          .map((event) => [event.stage, event.verb, event.objectRef?.resource, event.objectRef?.name, event.responseStatus?.code, event.userAgent]),
      ).toEqual([
        ['ResponseComplete', 'get', 'namespaces', 'default', 200, 'audit-probe/1'],
        ['ResponseComplete', 'get', 'namespaces', 'absent', 404, 'audit-probe/1'],
      ]);
    } finally {
      await cp.stop();
    }
  }, 120_000);

  it('starts etcd and the API server again on other ports when another process took theirs first', async () => {
    // What a suite running beside this one does between a port being found free and the component binding it.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as AddressInfo).port;
    // etcd's client port, then (after its retry on two fresh ports) the API server's.
    const handedOut: number[] = [];
    const queue = [takenPort, await freePort(), await freePort(), await freePort(), takenPort];
    const cp = await startControlPlane({
      portSource: async () => {
        const port = queue.shift() ?? (await freePort());
        handedOut.push(port);
        return port;
      },
    });
    try {
      await cp.adminClient.request({ method: 'GET', path: '/readyz' });
      expect({
        handedOut: handedOut.length,
        etcd: new URL(cp.etcdEndpoint).port === String(takenPort),
        apiServer: new URL(cp.server).port === String(takenPort),
        components: cp.components().map((component) => component.name),
      }).toEqual({ handedOut: 6, etcd: false, apiServer: false, components: ['etcd', 'kube-apiserver'] });
    } finally {
      await cp.stop();
      taken.close();
    }
  }, 120_000);
});
