// A runtime that sends no K8S_POD_UID in CNI_ARGS, through the unchanged upstream multus-shim: ADD reads the
// Pod once (no UID to compare with, and no second read to recover one), and DEL after the Pod is gone runs
// from the delegate cache without reading it at all (§10.2: DEL never requires the Pod).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, cacheRoot, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'no-uid';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;

function shimEnv(command: string, containerID: string, netns: string, podName: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerID,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${NS};K8S_POD_NAME=${podName};K8S_POD_INFRA_CONTAINER_ID=${containerID}`,
    CNI_PATH: node.binDirs[1] ?? '',
    PATH: process.env['PATH'] ?? '',
  };
}

const SHIM_CONFIG = (): string => JSON.stringify({ cniVersion: '1.0.0', name: 'multus-cni-network', type: 'multus-shim', daemonSocketDir: socketDir });

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
  socketDir = join(node.root, 'run-multus');
  await mkdir(socketDir, { recursive: true });
  const config = join(node.root, 'daemon-config.json');
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.0.0',
      chrootDir: '',
      socketDir,
      binDir: join(cacheRoot(), 'cni', 'bin'),
      confDir: node.confDir,
      cniDir: node.cniDir,
      clusterNetwork: 'primary',
      multusNamespace: 'kube-system',
      liveNetworkConfigOnAdd: true,
    }),
  );
  daemon = await startDaemon(
    { config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger: pino({ level: 'silent' }), resultCacheDir: node.resultCacheDir },
  );
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
