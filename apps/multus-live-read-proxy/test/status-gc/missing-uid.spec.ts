// A runtime that sends no K8S_POD_UID in CNI_ARGS, through the unchanged upstream multus-shim: ADD reads the
// Pod once (no UID to compare with, and no second read to recover one), and DEL after the Pod is gone runs
// from the delegate cache without reading it at all (§10.2: DEL never requires the Pod).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { shimEnv as fixtureShimEnv, shimConfig, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'no-uid';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;

/** The shim's environment without K8S_POD_UID, as some runtimes send it. */
function shimEnv(command: string, containerID: string, netns: string, podName: string): Record<string, string> {
  return fixtureShimEnv(node, command, containerID, netns, { namespace: NS, name: podName });
}

const SHIM_CONFIG = (): string => shimConfig(socketDir);

/** The live GETs of Pods the daemon made, from its own metrics. */
async function podReads(): Promise<number> {
  const { values } = await daemon.metrics.liveReadDuration.get();
  return values
    .filter((value) => value.metricName?.endsWith('_count') === true && value.labels['object'] === 'pod')
    .reduce((sum, value) => sum + value.value, 0);
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, metricsPort: -1 }));
}, 120_000);

afterAll(async () => {
  await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('a runtime that sends no K8S_POD_UID', () => {
  it('ADDs with one read of the Pod, and DELs from the cache after the Pod was deleted', async () => {
    await createPod(cp.adminClient, NS, 'anonymous');
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv('ADD', 'c-anonymous', sandbox.path, 'anonymous'), SHIM_CONFIG());
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      expect(await podReads()).toBe(1);

      await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name: 'anonymous' }, { gracePeriodSeconds: 0 });
      const del = await runShim(shimEnv('DEL', 'c-anonymous', sandbox.path, 'anonymous'), SHIM_CONFIG());
      expect({ code: del.code, stdout: del.stdout }).toEqual({ code: 0, stdout: '' });
      expect(await podReads()).toBe(1);
      expect(sandbox.links()).toEqual([]);
      expect((await readdir(join(node.hostLocalDir, 'primary'))).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry))).toEqual([]);
      expect(existsSync(join(node.cniDir, 'c-anonymous'))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });
});
