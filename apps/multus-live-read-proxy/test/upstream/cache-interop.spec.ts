// The delegate cache as a node moving between upstream multus-daemon v4.2.3 and this daemon needs it
// (§11): one cniDir, the unchanged upstream multus-shim, real bridge and host-local plugins in network
// namespaces. What one daemon ADDed, the other DELs from the cache file alone: both interfaces leave the
// sandbox, both host-local leases are released, the file is removed.
//
// Only one daemon runs at a time, as on a node, and the Pod and its NAD are deleted before the other
// daemon starts. Upstream's DEL rebuilds the delegates from the Pod when it finds no cache file, and
// returns success without deleting anything when the file does not decode; with the Pod gone from its
// informers' first LIST, only a cache file it read correctly can remove the second network.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, PRIMARY_BRIDGE, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { type ShimRun, runShim } from '../server/multus-shim.ts';
import { type UpstreamDaemon, grantUpstreamMultus, startUpstreamDaemon, upstreamNetnsPath } from './upstream-daemon.ts';

const NS = 'cache-interop';
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/** The Pod, its selected NAD and the sandbox's container ID for one direction. */
interface Case {
  readonly pod: KubeObject;
  readonly nad: string;
  readonly containerID: string;
}

let cp: ControlPlane;
let node: NodeFixture;
let token: string;
/** The cniDir of both daemons. */
let cniDir: string;
let running:
  { readonly kind: 'ours'; readonly daemon: Daemon; readonly socketDir: string } | { readonly kind: 'upstream'; readonly daemon: UpstreamDaemon } | undefined;
let starts = 0;
const cases = new Map<string, Case>();

function caseOf(name: string): Case {
  const found = cases.get(name);
  if (found === undefined) throw new Error(`no case ${name}`);
  return found;
}

/**
 * A Pod selecting one ordinary NAD as `side0`: a single-plugin bridge configuration with host-local
 * IPAM, next to the cluster network's conflist, so the cache holds both shapes Multus distinguishes.
 */
async function createCase(name: string, subnet: string): Promise<Case> {
  const nad = `${name}-net`;
  await cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: nad, namespace: NS },
      spec: {
        config: JSON.stringify({
          cniVersion: '1.0.0',
          name: nad,
          type: 'bridge',
          bridge: PRIMARY_BRIDGE,
          ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet }]] },
        }),
      },
    },
    { namespace: NS },
  );
  const pod = await createPod(cp.adminClient, NS, name);
  await cp.adminClient.patch(
    resourceTypes.pod,
    { namespace: NS, name },
    { metadata: { annotations: { [annotations.networks]: JSON.stringify([{ name: nad, interface: 'side0' }]) } } },
    'application/merge-patch+json',
  );
  return { pod, nad, containerID: `c-${name}` };
}

/** Deletes the Pod and its NAD for good: nothing left for a daemon started afterwards to rebuild from. */
async function deleteCase({ pod, nad }: Case): Promise<void> {
  const name = pod.metadata.name;
  await cp.adminClient.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: nad });
  await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
  await waitFor(
    `Pod ${name} gone`,
    async () => (await cp.adminClient.list(resourceTypes.pod, { namespace: NS, fieldSelector: `metadata.name=${name}` })).items.length === 0,
    { timeoutMs: 30_000 },
  );
}

async function stopRunning(): Promise<void> {
  const current = running;
  running = undefined;
  await current?.daemon.stop();
}

/** The node moves to this daemon: the other one stops first, so one daemon serves the node at a time. */
async function moveTo(kind: 'ours' | 'upstream'): Promise<void> {
  if (running?.kind === kind) return;
  await stopRunning();
  starts += 1;
  const dir = join(node.root, `${kind}-${String(starts)}`);
  if (kind === 'upstream') {
    running = { kind, daemon: await startUpstreamDaemon({ dir, node, nodeName: NODE, apiServer: cp.server, caCert: cp.caCert, token, cniDir }) };
    return;
  }
  const { daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, dir, liveNetworkConfigOnAdd: true, config: { cniDir } });
  running = { kind, daemon, socketDir };
  await waitFor('our daemon ready', async () => (await fetch(`http://127.0.0.1:${String(daemon.metricsPort)}/readyz`)).ok, { timeoutMs: 60_000 });
}

/** The runtime's ADD or DEL through the upstream shim to the daemon serving the node now. */
async function shim(command: 'ADD' | 'DEL', { pod, containerID }: Case, netns: string): Promise<ShimRun> {
  if (running === undefined) throw new Error('no daemon serves the node');
  const socketDir = running.kind === 'ours' ? running.socketDir : running.daemon.socketDir;
  return runShim(shimEnv(node, command, containerID, netns, { namespace: NS, name: pod.metadata.name, uid: pod.metadata.uid }), shimConfig(socketDir));
}

/**
 * host-local's leases of one network held by one container, as "<address> <interface>": each address file
 * names its container ID and interface. The primary network is shared with the other case's sandbox.
 */
function leases(network: string, containerID: string): string[] {
  const dir = join(node.hostLocalDir, network);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => IPV4.test(name))
    .map((name) => [name, ...readFileSync(join(dir, name), 'utf8').split(/\r?\n/)])
    .filter(([, owner]) => owner === containerID)
    .map(([address, , ifName]) => `${address ?? ''} ${ifName ?? ''}`)
    .sort();
}

/** The sandbox's interfaces and addresses, the container's leases on both networks, and whether its cache file exists. */
function nodeState(sandbox: { links(): string[] }, { nad, containerID }: Case): { links: string[]; leases: string[]; cacheFile: boolean } {
  return {
    links: sandbox.links(),
    leases: [...leases('primary', containerID), ...leases(nad, containerID)],
    cacheFile: existsSync(join(cniDir, containerID)),
  };
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  cniDir = join(node.root, 'shared-multus-cache');
  token = await grantUpstreamMultus(cp.adminClient);
  // Both exist before any daemon starts, so upstream's informers list them on their first sync.
  cases.set('ours-to-upstream', await createCase('ours-to-upstream', '10.244.8.0/24'));
  cases.set('upstream-to-ours', await createCase('upstream-to-ours', '10.244.9.0/24'));
}, 120_000);

afterAll(async () => {
  await stopRunning();
  await cp.stop();
  await removeNodeFixture(node);
}, 60_000);

describe('one delegate cache directory for upstream multus-daemon v4.2.3 and this daemon', () => {
  it('ADD through this daemon, DEL through upstream: upstream reads our cache file and removes both networks and the file', async () => {
    const subject = caseOf('ours-to-upstream');
    const sandbox = createSandbox();
    try {
      await moveTo('ours');
      const add = await shim('ADD', subject, sandbox.path);
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(nodeState(sandbox, subject)).toEqual({
        links: ['eth0 10.244.7.2', 'side0 10.244.8.2'],
        leases: ['10.244.7.2 eth0', '10.244.8.2 side0'],
        cacheFile: true,
      });

      await deleteCase(subject);
      await moveTo('upstream');
      // Upstream runs the plugins inside its own mount namespace, where the sandbox has this path. The shim
      // answers every DEL with success, whatever the daemon said: the outcome is read from the node.
      await shim('DEL', subject, upstreamNetnsPath(sandbox.name));
      expect(nodeState(sandbox, subject)).toEqual({ links: [], leases: [], cacheFile: false });
    } finally {
      sandbox.remove();
    }
  }, 180_000);

  it('ADD through upstream, DEL through this daemon: we read upstream’s cache file and remove both networks and the file', async () => {
    const subject = caseOf('upstream-to-ours');
    const sandbox = createSandbox();
    try {
      await moveTo('upstream');
      const add = await shim('ADD', subject, upstreamNetnsPath(sandbox.name));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      const state = nodeState(sandbox, subject);
      // The primary network's address depends on what the other case's sandbox took; its own network's does not.
      const primary = /^eth0 (10\.244\.7\.\d+)$/.exec(state.links[0] ?? '')?.[1] ?? 'no primary address';
      expect(state).toEqual({ links: [`eth0 ${primary}`, 'side0 10.244.9.2'], leases: [`${primary} eth0`, '10.244.9.2 side0'], cacheFile: true });

      await deleteCase(subject);
      await moveTo('ours');
      await shim('DEL', subject, sandbox.path);
      expect(nodeState(sandbox, subject)).toEqual({ links: [], leases: [], cacheFile: false });
    } finally {
      sandbox.remove();
    }
  }, 180_000);
});
