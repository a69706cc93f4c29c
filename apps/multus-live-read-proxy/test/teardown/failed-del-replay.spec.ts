// A delegate's DEL that fails through the unchanged upstream multus-shim v4.2.3: the shim answers the
// runtime with success (so the runtime never retries), and this daemon replays the teardown itself until
// every delegate is deleted — also after a restart. Real API server, real bridge and host-local plugins
// in real network namespaces; the faulty plugin wraps the real bridge and fails DEL a set number of times.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { shimConfig, shimEnv } from '../daemon/daemon-fixture.ts';
import { type NodeFixture, createNodeFixture, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import {
  type TeardownDaemon,
  createFaultyNad,
  createSelectingPod,
  failDels,
  leases,
  metricValue,
  startTeardownDaemon,
  stateFiles,
  writeFaultyBridge,
} from './teardown-node.ts';

const NS = 'teardown-replay';
/** Fast enough for a test, slow enough that the state between attempts can be looked at. */
const SCHEDULE = { initialMs: 1_000, maxMs: 2_000 };

let cp: ControlPlane;
let node: NodeFixture;
const running: TeardownDaemon[] = [];

async function start(dir: string, schedule = SCHEDULE): Promise<TeardownDaemon> {
  const started = await startTeardownDaemon(node, cp.kubeconfig, join(node.root, dir), schedule);
  running.push(started);
  return started;
}

async function stop(daemon: TeardownDaemon): Promise<void> {
  running.splice(running.indexOf(daemon), 1);
  await daemon.daemon.stop();
}

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

describe('a delegate DEL that fails, through the upstream shim', () => {
  it('is replayed by the daemon with backoff until it succeeds: lease released, cache kept until then and gone after', async () => {
    const ours = await start('replay');
    const faulty = await writeFaultyBridge(node, 'faulty-a', ours.cniDir);
    await createFaultyNad(cp.adminClient, node, NS, 'faulty-a-net', 'faulty-a', '10.250.1.0/24');
    const pod = await createSelectingPod(cp.adminClient, NS, 'replayed', 'faulty-a-net');
    const who = { namespace: NS, name: 'replayed', uid: pod.metadata.uid };
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-replayed', sandbox.path, who), shimConfig(ours.socketDir));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(leases(node, 'faulty-a-net', 'c-replayed')).toEqual(['10.250.1.2 net1']);

      await failDels(node, 'c-replayed', 3);
      const del = await runShim(shimEnv(node, 'DEL', 'c-replayed', sandbox.path, who), shimConfig(ours.socketDir));
      // The shim swallows the daemon's error: the runtime sees success and never sends this DEL again.
      expect(del.code).toBe(0);
      // The first retry comes a second later: until then the lease, the cache and the record are all there.
      expect({ leases: leases(node, 'faulty-a-net', 'c-replayed'), files: stateFiles(ours.cniDir, 'c-replayed') }).toEqual({
        leases: ['10.250.1.2 net1'],
        files: { cache: true, attachment: true, teardown: true },
      });
      expect(await metricValue(ours.daemon, 'sriov_dra_multus_pending_teardowns')).toBe(1);

      // The record goes before the worker forgets the teardown and sets the gauge: wait for both.
      await waitFor(
        'the teardown finished',
        async () => !stateFiles(ours.cniDir, 'c-replayed').teardown && (await metricValue(ours.daemon, 'sriov_dra_multus_pending_teardowns')) === 0,
        { timeoutMs: 30_000 },
      );
      // Three failed DELs, then one that succeeded; the cache was there for every one of them.
      expect(faulty.dels('c-replayed')).toEqual([
        { n: 1, cache: true },
        { n: 2, cache: true },
        { n: 3, cache: true },
        { n: 4, cache: true },
      ]);
      expect({ leases: leases(node, 'faulty-a-net', 'c-replayed'), primary: leases(node, 'primary', 'c-replayed'), links: sandbox.links() }).toEqual({
        leases: [],
        primary: [],
        links: [],
      });
      expect(stateFiles(ours.cniDir, 'c-replayed')).toEqual({ cache: false, attachment: false, teardown: false });
      expect({
        pended: await metricValue(ours.daemon, 'sriov_dra_multus_teardowns_pended_total', { reason: 'DelFailed' }),
        failedReplays: await metricValue(ours.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'retry', result: 'failure' }),
        succeededReplays: await metricValue(ours.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'retry', result: 'success' }),
        pending: await metricValue(ours.daemon, 'sriov_dra_multus_pending_teardowns'),
      }).toEqual({ pended: 1, failedReplays: 2, succeededReplays: 1, pending: 0 });
      // Each failure is logged with what an operator needs; the success once.
      const incomplete = ours.logs.filter((line) => line['msg'] === 'teardown incomplete: the delegate cache is kept and the DEL retried');
      expect(incomplete.map((line) => [line['containerID'], line['pod'], line['networks'], line['attempt'], typeof line['nextRetryAt']])).toEqual([
        ['c-replayed', `${NS}/replayed`, [`${NS}/faulty-a-net`], 1, 'string'],
        ['c-replayed', `${NS}/replayed`, [`${NS}/faulty-a-net`], 2, 'string'],
        ['c-replayed', `${NS}/replayed`, [`${NS}/faulty-a-net`], 3, 'string'],
      ]);
      expect(ours.logs.filter((line) => line['msg'] === 'pending teardown finished: every delegate deleted').map((line) => line['attempt'])).toEqual([4]);
    } finally {
      sandbox.remove();
      await stop(ours);
    }
  }, 120_000);

  it('is replayed at once when the runtime sends DEL again while the teardown is pending', async () => {
    const ours = await start('again', { initialMs: 3_600_000, maxMs: 3_600_000 });
    const faulty = await writeFaultyBridge(node, 'faulty-e', ours.cniDir);
    await createFaultyNad(cp.adminClient, node, NS, 'faulty-e-net', 'faulty-e', '10.250.6.0/24');
    const pod = await createSelectingPod(cp.adminClient, NS, 'again', 'faulty-e-net');
    const who = { namespace: NS, name: 'again', uid: pod.metadata.uid };
    const sandbox = createSandbox();
    try {
      expect((await runShim(shimEnv(node, 'ADD', 'c-again', sandbox.path, who), shimConfig(ours.socketDir))).code).toBe(0);
      await failDels(node, 'c-again', 1);
      expect((await runShim(shimEnv(node, 'DEL', 'c-again', sandbox.path, who), shimConfig(ours.socketDir))).code).toBe(0);
      expect(stateFiles(ours.cniDir, 'c-again').teardown).toBe(true);
      // The next retry is an hour away; the runtime's DEL does not wait for it.
      expect((await runShim(shimEnv(node, 'DEL', 'c-again', sandbox.path, who), shimConfig(ours.socketDir))).code).toBe(0);
      expect({
        dels: faulty.dels('c-again').map(({ n }) => n),
        leases: leases(node, 'faulty-e-net', 'c-again'),
        files: stateFiles(ours.cniDir, 'c-again'),
      }).toEqual({
        dels: [1, 2],
        leases: [],
        files: { cache: false, attachment: false, teardown: false },
      });
      expect(await metricValue(ours.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'runtime-del', result: 'success' })).toBe(1);
    } finally {
      sandbox.remove();
      await stop(ours);
    }
  }, 120_000);

  it('is replayed at start by a daemon that restarts while the teardown is pending', async () => {
    // The first daemon would wait an hour before its first retry.
    const first = await start('restart', { initialMs: 3_600_000, maxMs: 3_600_000 });
    const faulty = await writeFaultyBridge(node, 'faulty-d', first.cniDir);
    await createFaultyNad(cp.adminClient, node, NS, 'faulty-d-net', 'faulty-d', '10.250.4.0/24');
    const pod = await createSelectingPod(cp.adminClient, NS, 'restarted', 'faulty-d-net');
    const who = { namespace: NS, name: 'restarted', uid: pod.metadata.uid };
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-restarted', sandbox.path, who), shimConfig(first.socketDir));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      await failDels(node, 'c-restarted', 1);
      expect((await runShim(shimEnv(node, 'DEL', 'c-restarted', sandbox.path, who), shimConfig(first.socketDir))).code).toBe(0);
      expect(stateFiles(first.cniDir, 'c-restarted')).toEqual({ cache: true, attachment: true, teardown: true });
      await stop(first);

      // The Pod still exists: the restarted daemon replays the pending teardown, it does not ask the API server.
      const second = await start('restart');
      await waitFor('the pending teardown replayed at start', async () => Promise.resolve(!stateFiles(second.cniDir, 'c-restarted').teardown), {
        timeoutMs: 30_000,
      });
      expect(faulty.dels('c-restarted').map(({ n }) => n)).toEqual([1, 2]);
      expect({ leases: leases(node, 'faulty-d-net', 'c-restarted'), links: sandbox.links(), files: stateFiles(second.cniDir, 'c-restarted') }).toEqual({
        leases: [],
        links: [],
        files: { cache: false, attachment: false, teardown: false },
      });
      expect(await metricValue(second.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'start', result: 'success' })).toBe(1);
    } finally {
      sandbox.remove();
    }
  }, 120_000);
});
