// One simulated node served by both daemons at once — this one and upstream multus-daemon v4.2.3, each behind
// the unchanged upstream multus-shim on its own socket, with its own caches — so a parity spec sends the same
// runtime request to each and compares what the delegates received (the recording sriov stand-in logs every
// call's CNI_IFNAME, CNI_ARGS and exact stdin), the sandbox's interfaces and the shim's answer.
import { join } from 'node:path';
import type { KubeClient } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { NODE, type NodeFixture, createNodeFixture, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { type UpstreamDaemon, grantUpstreamMultus, startUpstreamDaemon, upstreamNetnsPath } from '../upstream/upstream-daemon.ts';

export interface ParityNode {
  readonly cp: ControlPlane;
  readonly node: NodeFixture;
  /** An ADD (then DEL) through one daemon. */
  addThrough(kind: 'ours' | 'upstream', pod: ParityPod, shimKeys?: Readonly<Record<string, unknown>>): Promise<Outcome>;
  /** The same ADD (then DEL) through both daemons. */
  addThroughBoth(pod: ParityPod, shimKeys?: Readonly<Record<string, unknown>>): Promise<{ readonly ours: Outcome; readonly upstream: Outcome }>;
  stop(): Promise<void>;
}

export interface ParityPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * One delegate call as the plugin saw it, with the container ID reading `<cid>` and the sandbox path `<netns>`
 * (each daemon has its own), so both daemons' calls compare. Member order is not compared: upstream
 * re-encodes a configuration it adds cni-args to with sorted keys, this daemon keeps the NAD's order.
 */
export interface RecordedCall {
  readonly ifName: string;
  readonly args: string;
  readonly stdin: unknown;
}

export interface Outcome {
  readonly code: number | null;
  /** The CNI error's msg and details when the ADD failed, else ''. */
  readonly error: string;
  /** The sandbox's interfaces after the ADD, by name. */
  readonly interfaces: readonly string[];
  /** The recording stand-in's ADD calls of this request. */
  readonly calls: readonly RecordedCall[];
}

let requests = 0;

/**
 * Starts the control plane, lets `setup` create namespaces, NADs and Pods (before upstream's informers first
 * list them, so its Pod cache is never stale), then starts both daemons on one node fixture.
 */
export async function startParityNode(namespace: string, setup: (admin: KubeClient, node: NodeFixture) => Promise<void>): Promise<ParityNode> {
  const cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, namespace);
  const node = await createNodeFixture();
  const token = await grantUpstreamMultus(cp.adminClient);
  await setup(cp.adminClient, node);
  const ours: { daemon: Daemon; socketDir: string } = await startFixtureDaemon(node, {
    kubeconfig: cp.kubeconfig,
    dir: join(node.root, 'ours'),
    metricsPort: -1,
  });
  const upstream: UpstreamDaemon = await startUpstreamDaemon({
    dir: join(node.root, 'upstream'),
    node,
    nodeName: NODE,
    apiServer: cp.server,
    caCert: cp.caCert,
    token,
  });

  async function addThrough(kind: 'ours' | 'upstream', pod: ParityPod, shimKeys: Readonly<Record<string, unknown>> = {}): Promise<Outcome> {
    requests += 1;
    const containerID = `parity-${kind}-${String(requests)}`;
    const sandbox = createSandbox();
    const netns = kind === 'ours' ? sandbox.path : upstreamNetnsPath(sandbox.name);
    const socketDir = kind === 'ours' ? ours.socketDir : upstream.socketDir;
    const env = (command: string): Record<string, string> => shimEnv(node, command, containerID, netns, pod);
    try {
      const add = await runShim(env('ADD'), shimConfig(socketDir, '1.0.0', shimKeys));
      const interfaces = sandbox.links().map((link) => link.split(' ')[0] ?? '');
      const calls = (await node.sriovCalls())
        .filter((call) => call.command === 'ADD' && call.args.split(';').includes(`K8S_POD_INFRA_CONTAINER_ID=${containerID}`))
        .map((call) => ({
          ifName: call.ifName,
          args: call.args.split(containerID).join('<cid>'),
          stdin: JSON.parse(JSON.stringify(call.stdin).split(netns).join('<netns>')) as unknown,
        }));
      let error = '';
      if (add.code !== 0) {
        const parsed = JSON.parse(add.stdout) as { msg?: string; details?: string };
        error = `${parsed.msg ?? ''} ${parsed.details ?? ''}`.trim();
      }
      await runShim(env('DEL'), shimConfig(socketDir, '1.0.0', shimKeys));
      return { code: add.code, error, interfaces, calls };
    } finally {
      sandbox.remove();
    }
  }

  return {
    cp,
    node,
    addThrough,
    async addThroughBoth(pod, shimKeys = {}) {
      return { ours: await addThrough('ours', pod, shimKeys), upstream: await addThrough('upstream', pod, shimKeys) };
    },
    async stop() {
      await ours.daemon.stop();
      await upstream.stop();
      await cp.stop();
      await removeNodeFixture(node);
    },
  };
}
