// DELs that never reached the daemon: the unchanged upstream multus-shim v4.2.3 answers a DEL with success
// when the daemon is down, and nothing retries it. At its next start the daemon tears down what it cached
// for Pods that are really gone (a live GET: NotFound, or the name now holds another Pod), and leaves a Pod
// that still exists, and a cache it has no attachment record for, alone. A CNI GC's valid attachments also
// tear down the attachments the runtime no longer has. Real API server, real bridge and host-local.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { attachmentRecordPath } from '../../src/teardown/teardown-store.ts';
import { shimConfig, shimEnv } from '../daemon/daemon-fixture.ts';
import { type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import {
  type TeardownDaemon,
  createFaultyNad,
  createSelectingPod,
  leases,
  metricValue,
  startTeardownDaemon,
  stateFiles,
  writeFaultyBridge,
} from './teardown-node.ts';

const NS = 'teardown-catch-up';
const SCHEDULE = { initialMs: 1_000, maxMs: 2_000 };

let cp: ControlPlane;
let node: NodeFixture;
const running: TeardownDaemon[] = [];

async function start(dir: string): Promise<TeardownDaemon> {
  const started = await startTeardownDaemon(node, cp.kubeconfig, join(node.root, dir), SCHEDULE);
  running.push(started);
  return started;
}

async function stop(daemon: TeardownDaemon): Promise<void> {
  running.splice(running.indexOf(daemon), 1);
  await daemon.daemon.stop();
}

async function deletePod(name: string): Promise<void> {
  await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name }, { gracePeriodSeconds: 0 });
  await waitFor(
    `Pod ${name} gone`,
    async () => (await cp.adminClient.list(resourceTypes.pod, { namespace: NS, fieldSelector: `metadata.name=${name}` })).items.length === 0,
    { timeoutMs: 30_000 },
  );
}

/** What a container holds on the node: its leases on both networks, its sandbox's links, its files. */
function holdings(cniDir: string, network: string, containerID: string, sandbox: { links(): string[] }) {
  return {
    leases: [...leases(node, 'primary', containerID), ...leases(node, network, containerID)].length,
    links: sandbox.links().length,
    ...stateFiles(cniDir, containerID),
  };
}

const HELD = { leases: 2, links: 2, cache: true, attachment: true, teardown: false };
const RELEASED = { leases: 0, links: 0, cache: false, attachment: false, teardown: false };

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
}, 120_000);

afterAll(async () => {
  for (const daemon of [...running]) await stop(daemon);
  await cp.stop();
  await removeNodeFixture(node);
}, 60_000);

describe('DELs the daemon missed while it was down', () => {
  it('are caught up at start for Pods that are gone; a live Pod and a cache without attachment record are left alone', async () => {
    const first = await start('catch-up');
    await writeFaultyBridge(node, 'plain-b', first.cniDir);
    await createFaultyNad(cp.adminClient, node, NS, 'b-net', 'plain-b', '10.250.2.0/24');
    // Sorted by container ID, the order start-up looks at them in: when the last is done, all were decided.
    const names = ['alive', 'legacy', 'recreated', 'gone'] as const;
    const containers = new Map(names.map((name, index) => [name, `c-b${String(index + 1)}-${name}`]));
    const sandboxes = new Map(names.map((name) => [name, createSandbox()]));
    const id = (name: (typeof names)[number]): string => containers.get(name) ?? '';
    const sandbox = (name: (typeof names)[number]) => sandboxes.get(name) ?? createSandbox();
    try {
      const pods = new Map<string, string>();
      for (const name of names) {
        const pod = await createSelectingPod(cp.adminClient, NS, name, 'b-net');
        pods.set(name, pod.metadata.uid);
        const add = await runShim(
          shimEnv(node, 'ADD', id(name), sandbox(name).path, { namespace: NS, name, uid: pod.metadata.uid }),
          shimConfig(first.socketDir),
        );
        expect({ name, code: add.code, stderr: add.stderr }).toEqual({ name, code: 0, stderr: '' });
      }
      await stop(first);

      // The runtime's DELs while no daemon serves: the shim reports success and nothing is deleted.
      for (const name of names) {
        const del = await runShim(
          shimEnv(node, 'DEL', id(name), sandbox(name).path, { namespace: NS, name, uid: pods.get(name) ?? '' }),
          shimConfig(first.socketDir),
        );
        expect({ name, code: del.code }).toEqual({ name, code: 0 });
        expect(holdings(first.cniDir, 'b-net', id(name), sandbox(name))).toEqual(HELD);
      }
      for (const name of ['legacy', 'recreated', 'gone']) await deletePod(name);
      // Its name now holds another Pod, which this sandbox is not.
      await createPod(cp.adminClient, NS, 'recreated');
      // A cache as upstream Multus or an earlier release leaves it: no attachment record.
      await rm(attachmentRecordPath(first.cniDir, id('legacy')));

      const second = await start('catch-up');
      // A teardown removes the cache first, its records next, and then sets the gauge: wait for all of it.
      await waitFor(
        'the last gone Pod’s attachment torn down',
        async () =>
          Object.values(stateFiles(second.cniDir, id('gone'))).every((present) => !present) &&
          (await metricValue(second.daemon, 'sriov_dra_multus_pending_teardowns')) === 0,
        { timeoutMs: 30_000 },
      );
      expect(Object.fromEntries(names.map((name) => [name, holdings(second.cniDir, 'b-net', id(name), sandbox(name))]))).toEqual({
        alive: HELD,
        legacy: { ...HELD, attachment: false },
        recreated: RELEASED,
        gone: RELEASED,
      });
      expect({
        pended: await metricValue(second.daemon, 'sriov_dra_multus_teardowns_pended_total', { reason: 'PodGone' }),
        replayed: await metricValue(second.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'pod-gone', result: 'success' }),
        pending: await metricValue(second.daemon, 'sriov_dra_multus_pending_teardowns'),
      }).toEqual({ pended: 2, replayed: 2, pending: 0 });
      expect(second.logs.some((line) => line['containerID'] === id('legacy') && String(line['msg']).includes('without an attachment record'))).toBe(true);
    } finally {
      for (const each of sandboxes.values()) each.remove();
    }
  }, 180_000);
});

describe('CNI GC through the upstream shim', () => {
  it('tears down now the attachments not among the runtime’s valid attachments, and only those', async () => {
    const ours = await start('gc');
    await writeFaultyBridge(node, 'plain-g', ours.cniDir);
    await createFaultyNad(cp.adminClient, node, NS, 'g-net', 'plain-g', '10.250.3.0/24');
    const kept = createSandbox();
    const stale = createSandbox();
    try {
      for (const [name, sandbox] of [
        ['kept', kept],
        ['stale', stale],
      ] as const) {
        const pod = await createSelectingPod(cp.adminClient, NS, `g-${name}`, 'g-net');
        const add = await runShim(
          shimEnv(node, 'ADD', `c-g-${name}`, sandbox.path, { namespace: NS, name: `g-${name}`, uid: pod.metadata.uid }),
          shimConfig(ours.socketDir),
        );
        expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      }
      // The Pod of the stale one still exists: only the runtime's word makes it stale.
      const gc = await runShim(
        { CNI_COMMAND: 'GC', CNI_PATH: node.binDirs[1] ?? '', PATH: process.env['PATH'] ?? '' },
        shimConfig(ours.socketDir, '1.1.0', { 'cni.dev/valid-attachments': [{ containerID: 'c-g-kept', ifname: 'eth0' }] }),
      );
      expect({ code: gc.code, stdout: gc.stdout }).toEqual({ code: 0, stdout: '' });
      expect({ kept: holdings(ours.cniDir, 'g-net', 'c-g-kept', kept), stale: holdings(ours.cniDir, 'g-net', 'c-g-stale', stale) }).toEqual({
        kept: HELD,
        stale: RELEASED,
      });
      expect(await metricValue(ours.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'gc', result: 'success' })).toBe(1);
    } finally {
      kept.remove();
      stale.remove();
    }
  }, 120_000);
});
