// The test control plane itself: the pinned version answers, every component runs, and stop() leaves
// no process and no listening port behind.
import { connect } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_K8S_VERSION, isProcessAlive as alive, startControlPlane } from '../src/testing/index.ts';

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

describe('startControlPlane', () => {
  it('runs the pinned Kubernetes with all components and cleans up completely', async () => {
    const cp = await startControlPlane({ controllerManager: true, scheduler: true });
    const version = (await cp.adminClient.request({ method: 'GET', path: '/version' })) as { gitVersion: string };
    expect(version.gitVersion).toBe(process.env['K8S_VERSION'] ?? DEFAULT_K8S_VERSION);
    const components = cp.components();
    expect(components.map((component) => component.name)).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    const pids = components.map((component) => component.pid ?? -1);
    expect(pids.every(alive)).toBe(true);
    const endpoints = [cp.server, cp.etcdEndpoint];

    await cp.stop();
    expect(pids.filter(alive)).toEqual([]);
    expect(await Promise.all(endpoints.map(refused))).toEqual([true, true]);
  }, 120_000);
});
