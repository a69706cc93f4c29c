// A node bringing up 50 sandboxes at once: the unchanged upstream multus-shim (v4.2.3) runs 50 ADDs
// concurrently against this daemon in live mode (each ADD reads its Pod from the API server), the real
// bridge/host-local plugins attach the primary network in 50 network namespaces, then 50 concurrent DELs
// must leave no address lease and no cache file behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { shimConfig as fixtureShimConfig, shimEnv as fixtureShimEnv, startFixtureDaemon } from './daemon-fixture.ts';

const NS = 'burst';
const PODS = 50;

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;
const sandboxes: ReturnType<typeof createSandbox>[] = [];

function shimEnv(command: string, index: number, pod: KubeObject): Record<string, string> {
  return fixtureShimEnv(node, command, `c-burst-${String(index)}`, sandboxes[index]?.path ?? '', {
    namespace: NS,
    name: pod.metadata.name,
    uid: pod.metadata.uid,
  });
}

/** Entries that are leases of host-local (one file per address) in the primary network's data dir. */
function leases(): string[] {
  return readdirSync(join(node.hostLocalDir, 'primary')).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry));
}

/** The delegate cache files of cniDir (one per container); libcni's results sit beside them in results/, the daemon's teardown state in .sriov-dra/. */
function delegateCacheFiles(): string[] {
  return listOrEmpty(node.cniDir).filter((entry) => !entry.startsWith('results') && !entry.startsWith('.sriov-dra'));
}

function listOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
}

beforeAll(async () => {
  cp = await startControlPlane();
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, metricsPort: -1 }));
  for (let index = 0; index < PODS; index += 1) sandboxes.push(createSandbox());
}, 120_000);

afterAll(async () => {
  for (const sandbox of sandboxes) sandbox.remove();
  await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe(`${String(PODS)} sandboxes at once`, () => {
  it('all ADD with distinct primary addresses and network-status, then all DEL without leaking a lease or a cache file', async () => {
    const pods = await Promise.all(Array.from({ length: PODS }, (_, index) => createPod(cp.adminClient, NS, `burst-${String(index)}`)));
    const shimConfig = fixtureShimConfig(socketDir);

    const addStart = performance.now();
    const adds = await Promise.all(pods.map((pod, index) => runShim(shimEnv('ADD', index, pod), shimConfig)));
    const addWall = performance.now() - addStart;
    expect(adds.filter((add) => add.code !== 0).map((add) => add.stdout)).toEqual([]);

    const addresses = sandboxes.map((sandbox) => sandbox.links());
    expect(addresses.every((links) => links.length === 1 && /^eth0 10\.244\.7\.\d+$/.test(links[0] ?? ''))).toBe(true);
    expect(new Set(addresses.map((links) => links[0])).size).toBe(PODS);
    expect(leases()).toHaveLength(PODS);

    const statuses = await Promise.all(
      pods.map(async (pod) => {
        const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: pod.metadata.name });
        return JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { name: string; interface: string; ips: string[] }[];
      }),
    );
    // Each Pod's network-status names its own sandbox's address.
    expect(statuses.map((status) => status.map((entry) => `${entry.name} ${entry.interface} ${entry.ips.join(',')}`))).toEqual(
      addresses.map((links) => [`primary eth0 ${(links[0] ?? '').slice('eth0 '.length)}`]),
    );
    expect(delegateCacheFiles()).toHaveLength(PODS);

    const delStart = performance.now();
    const dels = await Promise.all(pods.map((pod, index) => runShim(shimEnv('DEL', index, pod), shimConfig)));
    const delWall = performance.now() - delStart;
    expect(dels.filter((del) => del.code !== 0).map((del) => del.stdout)).toEqual([]);

    expect(sandboxes.flatMap((sandbox) => sandbox.links())).toEqual([]);
    expect(leases()).toEqual([]);
    expect(delegateCacheFiles()).toEqual([]);
    expect(listOrEmpty(join(node.cniDir, 'results'))).toEqual([]);
    // No pending teardown and no attachment record is left either.
    expect(listOrEmpty(join(node.cniDir, '.sriov-dra', 'attachments')).concat(listOrEmpty(join(node.cniDir, '.sriov-dra', 'teardowns')))).toEqual([]);
    process.stdout.write(`${String(PODS)} concurrent ADDs: ${addWall.toFixed(0)} ms wall; ${String(PODS)} concurrent DELs: ${delWall.toFixed(0)} ms wall\n`);
  }, 300_000);
});
