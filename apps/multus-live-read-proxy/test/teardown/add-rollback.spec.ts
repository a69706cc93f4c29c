// A partly failed ADD through the unchanged upstream multus-shim v4.2.3: the second delegate fails, and
// what ran is undone in reverse (the cluster network's veth and host-local lease). An undo whose DEL
// fails becomes a pending teardown the daemon finishes itself, with no DEL from the runtime.
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
  failAdds,
  failDels,
  leases,
  metricValue,
  startTeardownDaemon,
  stateFiles,
  writeFaultyBridge,
} from './teardown-node.ts';

const NS = 'teardown-rollback';

let cp: ControlPlane;
let node: NodeFixture;
let ours: TeardownDaemon;
let faulty: Awaited<ReturnType<typeof writeFaultyBridge>>;

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  ours = await startTeardownDaemon(node, cp.kubeconfig, join(node.root, 'rollback'), { initialMs: 1_000, maxMs: 2_000 });
  faulty = await writeFaultyBridge(node, 'faulty-c', ours.cniDir);
  await createFaultyNad(cp.adminClient, node, NS, 'faulty-c-net', 'faulty-c', '10.250.5.0/24');
}, 120_000);

afterAll(async () => {
  await ours.daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
}, 60_000);

/** A Pod whose second network fails ADD, added through the shim; returns the shim's run and the sandbox. */
async function failedAdd(name: string, containerID: string) {
  const pod = await createSelectingPod(cp.adminClient, NS, name, 'faulty-c-net');
  await failAdds(node, containerID);
  const sandbox = createSandbox();
  const add = await runShim(shimEnv(node, 'ADD', containerID, sandbox.path, { namespace: NS, name, uid: pod.metadata.uid }), shimConfig(ours.socketDir));
  return { add, sandbox, pod };
}

describe('a partly failed ADD through the upstream shim', () => {
  it('undoes the delegate that ran: its host-local lease is released and no interface is left in the sandbox', async () => {
    const { add, sandbox } = await failedAdd('undone', 'c-c1-undone');
    try {
      expect(add.code).not.toBe(0);
      expect(`${add.stdout}${add.stderr}`).toContain('injected ADD failure');
      expect({
        primary: leases(node, 'primary', 'c-c1-undone'),
        second: leases(node, 'faulty-c-net', 'c-c1-undone'),
        links: sandbox.links(),
        dels: faulty.dels('c-c1-undone').length,
      }).toEqual({ primary: [], second: [], links: [], dels: 1 });
      // As upstream: the cache stays for the runtime's DEL; the undo finished, so nothing is pending.
      expect(stateFiles(ours.cniDir, 'c-c1-undone')).toEqual({ cache: true, attachment: true, teardown: false });
    } finally {
      sandbox.remove();
    }
  }, 60_000);

  it('hands an undo whose DEL failed to the daemon, which finishes it without a DEL from the runtime', async () => {
    await failDels(node, 'c-c2-undo-fails', 1);
    const { add, sandbox } = await failedAdd('undo-fails', 'c-c2-undo-fails');
    try {
      expect(add.code).not.toBe(0);
      // The cluster network's undo did not depend on the failed one: its lease and veth are gone already.
      expect({ primary: leases(node, 'primary', 'c-c2-undo-fails'), links: sandbox.links() }).toEqual({ primary: [], links: [] });
      expect(stateFiles(ours.cniDir, 'c-c2-undo-fails')).toEqual({ cache: true, attachment: true, teardown: true });
      await waitFor('the unfinished undo finished', async () => Promise.resolve(!stateFiles(ours.cniDir, 'c-c2-undo-fails').teardown), { timeoutMs: 30_000 });
      expect({ dels: faulty.dels('c-c2-undo-fails').map(({ n }) => n), files: stateFiles(ours.cniDir, 'c-c2-undo-fails') }).toEqual({
        dels: [1, 2],
        files: { cache: false, attachment: false, teardown: false },
      });
      expect({
        pended: await metricValue(ours.daemon, 'sriov_dra_multus_teardowns_pended_total', { reason: 'AddRollbackFailed' }),
        replayed: await metricValue(ours.daemon, 'sriov_dra_multus_teardown_replays_total', { trigger: 'retry', result: 'success' }),
      }).toEqual({ pended: 1, replayed: 1 });
    } finally {
      sandbox.remove();
    }
  }, 60_000);
});
