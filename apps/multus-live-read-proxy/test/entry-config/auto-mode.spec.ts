// Auto mode as a node runs it: the daemon generates 00-multus.conf from the primary network in the CNI
// configuration directory, the runtime hands that file to the unchanged upstream multus-shim (v4.2.3) as
// its stdin configuration, and the shim finds our daemon through the socket directory named in it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { annotations } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, cacheRoot, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { writeAutoModeConfig } from './auto-mode-node.ts';

const NS = 'auto-mode';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let daemonStopped = false;
let socketDir: string;
let entryPath: string;
let primaryPath: string;
const logs: { outcome?: string; msg: string }[] = [];

function shimEnv(command: string, containerID: string, netns: string, pod: { name: string; uid: string }): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerID,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${NS};K8S_POD_NAME=${pod.name};K8S_POD_INFRA_CONTAINER_ID=${containerID};K8S_POD_UID=${pod.uid}`,
    CNI_PATH: join(cacheRoot(), 'cni', 'bin'),
    PATH: process.env['PATH'] ?? '',
  };
}

async function liveReads(): Promise<number> {
  const metric = await daemon.metrics.liveReadDuration.get();
  return metric.values.filter((value) => value.metricName === 'sriov_dra_multus_live_read_duration_seconds_count').reduce((sum, value) => sum + value.value, 0);
}

/** Waits for `condition`, failing with `what` after a generous deadline (no duration is asserted). */
async function eventually(what: string, condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 30_000) throw new Error(`still waiting for ${what}`);
    await delay(50);
  }
}

const outcomes = (outcome: string): number => logs.filter((line) => line.outcome === outcome).length;

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  const autoMode = await writeAutoModeConfig(node);
  ({ socketDir, entryPath } = autoMode);
  primaryPath = join(node.confDir, '10-primary.conflist');
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(JSON.parse(line) as { outcome?: string; msg: string }) });
  daemon = await startDaemon(
    { config: autoMode.config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger, resultCacheDir: node.resultCacheDir },
  );
}, 120_000);

afterAll(async () => {
  if (!daemonStopped) await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('the generated 00-multus.conf', () => {
  it('is written at start, 0600, with the shim’s keys and the primary network’s path', () => {
    expect(daemon.entryConfigPath).toBe(entryPath);
    expect(statSync(entryPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(entryPath, 'utf8')).toBe(
      `{"binDir":"${join(cacheRoot(), 'cni', 'bin')}","cniVersion":"1.0.0","name":"multus-cni-network","clusterNetwork":"${primaryPath}",` +
        `"type":"multus-shim","cniDir":"${node.cniDir}","daemonSocketDir":"${socketDir}","liveNetworkConfigOnAdd":true}`,
    );
  });

  it('is the upstream shim’s whole configuration: an ADD through it reaches this daemon and the primary network', async () => {
    const pod = await createPod(cp.adminClient, NS, 'web');
    const sandbox = createSandbox();
    const who = { name: 'web', uid: pod.metadata.uid };
    try {
      const readsBefore = await liveReads();
      const add = await runShim(shimEnv('ADD', 'c-web', sandbox.path, who), await readFile(entryPath));
      expect({ code: add.code, stderr: add.stderr, stdout: add.code === 0 ? '' : add.stdout }).toEqual({ code: 0, stderr: '', stdout: '' });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'web' });
      expect((JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { name: string }[]).map((status) => status.name)).toEqual([
        'primary',
      ]);
      expect(await liveReads()).toBeGreaterThan(readsBefore);

      // A shim file that says otherwise does not turn live reads off: daemon-config's key wins.
      const edited = (await readFile(entryPath, 'utf8')).replace('"liveNetworkConfigOnAdd":true', '"liveNetworkConfigOnAdd":false');
      expect(edited).toContain('"liveNetworkConfigOnAdd":false');
      const del = await runShim(shimEnv('DEL', 'c-web', sandbox.path, who), edited);
      expect(del.code).toBe(0);
      const readsBeforeSecondAdd = await liveReads();
      const again = await runShim(shimEnv('ADD', 'c-web2', sandbox.path, who), edited);
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
      expect(await liveReads()).toBeGreaterThan(readsBeforeSecondAdd);
      expect((await runShim(shimEnv('DEL', 'c-web2', sandbox.path, who), edited)).code).toBe(0);
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });

  it('is regenerated when the primary configuration changes', async () => {
    const primary = JSON.parse(await readFile(primaryPath, 'utf8')) as { plugins: Record<string, unknown>[] };
    const written = outcomes('written');
    primary.plugins.push({ type: 'portmap', capabilities: { portMappings: true } });
    await writeFile(primaryPath, JSON.stringify(primary));
    // The write is logged after the rename and the directory's fsync: the next test counts the log lines.
    await eventually(
      'the regenerated file, its write logged',
      () => readFileSync(entryPath, 'utf8').includes('"capabilities":{"portMappings":true}') && outcomes('written') > written,
    );
    expect(statSync(entryPath).mode & 0o777).toBe(0o600);
  });

  it('is never rewritten when its content would not change', async () => {
    const before = statSync(entryPath, { bigint: true });
    const written = outcomes('written');
    const unchanged = outcomes('unchanged');
    // Same bytes again, and an unrelated file: both wake the watch, neither changes the rendering.
    await writeFile(primaryPath, await readFile(primaryPath));
    await writeFile(join(node.confDir, 'notes.txt'), 'not a CNI configuration');
    await eventually('a check that found the file current', () => outcomes('unchanged') > unchanged);
    const after = statSync(entryPath, { bigint: true });
    expect({ ino: after.ino, mtime: after.mtimeNs, written: outcomes('written') }).toEqual({ ino: before.ino, mtime: before.mtimeNs, written });
  });

  it('is rewritten by the periodic check after someone else replaced it, and removed when the daemon stops', async () => {
    await writeFile(entryPath, '{"cniVersion":"1.0.0","name":"stale","type":"multus-shim"}');
    await eventually('the restored file', () => readFileSync(entryPath, 'utf8').includes(`"clusterNetwork":"${primaryPath}"`));
    daemonStopped = true;
    await daemon.stop();
    expect(existsSync(entryPath)).toBe(false);
  });
});
