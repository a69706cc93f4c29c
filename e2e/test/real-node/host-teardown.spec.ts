// The real node leaves the machine as it found it: the kubelet's sysctls restored, its iptables chains and
// the node's own DNAT chain gone, no cgroup, mount, link or fixed host directory left, even when Pods still
// run at teardown (the crash path: nothing is deleted gracefully first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, cniPlugins, createNamespace, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { chartImages } from '../../src/real-node/chart-images.ts';
import { type HostFootprint, footprintChanges, hostFootprint } from '../../src/real-node/host-footprint.ts';
import { type RealNode, lockMachine, startRealNode } from '../../src/real-node/real-node.ts';

describe('a real node’s teardown restores the host', () => {
  let controlPlane: ControlPlane;
  let root: string;
  let unlock: () => void;
  let before: HostFootprint;

  beforeAll(async () => {
    // The machine held from before the host is recorded until after it is compared: no other real node
    // (another process's) changes it meanwhile.
    unlock = await lockMachine(() => undefined);
    controlPlane = await startControlPlane({ controllerManager: true, scheduler: true });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-teardown-'));
    before = hostFootprint(root);
  }, 600_000);

  afterAll(async () => {
    unlock();
    await controlPlane.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('runs a Pod, is torn down with it running, and leaves no trace', async () => {
    const images = chartImages();
    const bridge = `sdrat${String(process.pid % 100_000)}`;
    const cni = { binDir: path.join(root, 'cni/bin'), confDir: path.join(root, 'cni/net.d') };
    fs.mkdirSync(cni.binDir, { recursive: true });
    fs.mkdirSync(cni.confDir, { recursive: true });
    for (const plugin of ['bridge', 'host-local', 'loopback']) fs.copyFileSync(path.join(cniPlugins().binDir, plugin), path.join(cni.binDir, plugin));
    fs.writeFileSync(
      path.join(cni.confDir, '10-teardown.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'teardown',
        plugins: [
          { type: 'bridge', bridge, ipMasq: false, ipam: { type: 'host-local', dataDir: path.join(root, 'ipam'), ranges: [[{ subnet: '10.244.9.0/24' }]] } },
        ],
      }),
    );
    let node: RealNode | undefined;
    try {
      node = await startRealNode({
        controlPlane,
        name: 'teardown-node',
        labels: {},
        root: path.join(root, 'node'),
        cni,
        cdiRoot: path.join(root, 'cdi'),
        podBridge: bridge,
        images: [images.pause.archive, images.busybox.archive],
        log: () => undefined,
      });
      expect(footprintChanges(before, hostFootprint(root)).length).toBeGreaterThan(0);
      await createNamespace(controlPlane.adminClient, 'teardown');
      await controlPlane.adminClient.create(
        resourceTypes.pod,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'sleeper' },
          spec: {
            nodeName: 'teardown-node',
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'c', image: images.busybox.image, imagePullPolicy: 'Never', command: ['sleep', '1000000'] }],
          },
        },
        { namespace: 'teardown' },
      );
      await waitFor(
        'the Pod to run',
        async () =>
          ((await controlPlane.adminClient.get(resourceTypes.pod, { namespace: 'teardown', name: 'sleeper' })) as { status?: { phase?: string } }).status
            ?.phase === 'Running',
        { timeoutMs: 60_000, describe: () => node?.logTail() ?? '' },
      );
    } finally {
      await node?.stop();
    }
    expect(footprintChanges(before, hostFootprint(root))).toEqual([]);
  }, 300_000);
});
