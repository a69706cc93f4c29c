// The whole daemon as a node runs it: the unchanged upstream multus-shim (v4.2.3) is the CNI binary, our
// daemon answers on its socket, reads the Pod and NADs live from a real API server, and runs the real
// bridge/host-local plugins and a recording sriov stand-in in network namespaces.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { type NodeFixture, PRIMARY_BRIDGE, bindShadow, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { shimConfig as fixtureShimConfig, shimEnv as fixtureShimEnv, startFixtureDaemon } from './daemon-fixture.ts';

const NS = 'ai-workloads';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;

/** The shim's environment for a Pod of this file's namespace. */
function shimEnv(command: string, containerID: string, netns: string, pod: { name: string; uid: string }): Record<string, string> {
  return fixtureShimEnv(node, command, containerID, netns, { namespace: NS, ...pod });
}

function shimConfig(cniVersion: string): string {
  return fixtureShimConfig(socketDir, cniVersion);
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig }));
}, 120_000);

afterAll(async () => {
  await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('the upstream multus-shim driving this daemon', () => {
  it('ADDs the primary network and the Pod’s managed VF, CHECKs, and DELs from the cache while the shadow is Terminating', async () => {
    const pod = await createPod(cp.adminClient, NS, 'trainer');
    const shadow = await bindShadow(cp.adminClient, pod, node.hostLocalDir, '0000:03:00.1');
    const sandbox = createSandbox();
    const who = { name: 'trainer', uid: pod.metadata.uid };
    try {
      const add = await runShim(shimEnv('ADD', 'c-trainer', sandbox.path, who), shimConfig('0.4.0'));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      // The shim prints the master's result in the version the runtime asked for.
      const result = JSON.parse(add.stdout) as { cniVersion: string; ips: { version: string; address: string }[] };
      expect({ cniVersion: result.cniVersion, ips: result.ips.map((ip) => `${ip.version} ${ip.address}`) }).toEqual({
        cniVersion: '0.4.0',
        ips: ['4 10.244.7.2/24'],
      });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      expect((await node.sriovCalls()).map(({ command, ifName, stdin }) => `${command} ${ifName} ${String(stdin['deviceID'])}`)).toEqual([
        'ADD dra0 0000:03:00.1',
      ]);
      const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'trainer' });
      expect((JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { interface: string }[]).map((status) => status.interface)).toEqual(
        ['eth0', 'dra0'],
      );

      const check = await runShim(shimEnv('CHECK', 'c-trainer', sandbox.path, who), shimConfig('1.0.0'));
      expect(check.code).toBe(0);

      // The Pod goes away and the shadow is only Terminating (its finalizer holds it): DEL needs neither.
      await cp.adminClient.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow });
      await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name: 'trainer' }, { gracePeriodSeconds: 0 });
      const del = await runShim(shimEnv('DEL', 'c-trainer', sandbox.path, who), shimConfig('1.0.0'));
      expect(del.code).toBe(0);
      expect((await node.sriovCalls()).map(({ command, ifName, stdin }) => `${command} ${ifName} ${String(stdin['deviceID'])}`)).toEqual([
        'ADD dra0 0000:03:00.1',
        'DEL dra0 0000:03:00.1',
      ]);
      expect(sandbox.links()).toEqual([]);
      expect(readdirSync(join(node.hostLocalDir, 'primary')).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry))).toEqual([]);
      expect(existsSync(join(node.cniDir, 'c-trainer'))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });

  it('hands a selection its static address (runtimeConfig ips and CNI_ARGS IP, as Multus passes both) and chains tuning after the bridge', async () => {
    // An ordinary NAD: a second veth on the node bridge, static IPAM fed by runtimeConfig, tuning after it.
    await cp.adminClient.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: 'static-net', namespace: NS },
        spec: {
          config: JSON.stringify({
            cniVersion: '1.0.0',
            name: 'static-net',
            plugins: [
              { type: 'bridge', bridge: PRIMARY_BRIDGE, ipam: { type: 'static' }, capabilities: { ips: true } },
              { type: 'tuning', mtu: 1400 },
            ],
          }),
        },
      },
      { namespace: NS },
    );
    const pod = await createPod(cp.adminClient, NS, 'static-user');
    await cp.adminClient.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'static-user' },
      { metadata: { annotations: { [annotations.networks]: '[{"name":"static-net","ips":["192.168.77.5/24"]}]' } } },
      'application/merge-patch+json',
    );
    const sandbox = createSandbox();
    const who = { name: 'static-user', uid: pod.metadata.uid };
    try {
      const add = await runShim(shimEnv('ADD', 'c-static', sandbox.path, who), shimConfig('1.0.0'));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.3', 'net1 192.168.77.5']);
      const mtu = JSON.parse(execFileSync('ip', ['-n', sandbox.name, '-j', 'link', 'show', 'dev', 'net1'], { encoding: 'utf8' })) as { mtu: number }[];
      expect(mtu[0]?.mtu).toBe(1400);
      const del = await runShim(shimEnv('DEL', 'c-static', sandbox.path, who), shimConfig('1.0.0'));
      expect(del.code).toBe(0);
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });

  it('answers a refused ADD with the typed reason in the shim’s CNI error', async () => {
    const pod = await createPod(cp.adminClient, NS, 'collider');
    await cp.adminClient.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'collider' },
      { metadata: { annotations: { [annotations.networks]: '[{"name":"missing-net","interface":"eth0"}]' } } },
      'application/merge-patch+json',
    );
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv('ADD', 'c-collider', sandbox.path, { name: 'collider', uid: pod.metadata.uid }), shimConfig('1.0.0'));
      expect(add.code).not.toBe(0);
      const error = JSON.parse(add.stdout) as { msg: string; details?: string };
      expect(`${error.msg} ${error.details ?? ''}`).toContain('NetworkAttachmentDefinitionNotFound');
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });
});
