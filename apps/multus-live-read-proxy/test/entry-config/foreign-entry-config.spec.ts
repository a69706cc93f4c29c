// Rolling back to upstream Multus on a node: upstream's thick daemon writes its own 00-multus.conf over the
// one this daemon generated (auto mode), and this daemon is then stopped. Stopping removes the file only
// while it is still the one generated here, so the node keeps upstream's entry configuration and Pods keep
// getting networks; removing it unconditionally would leave the runtime with the primary network alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture, createNodeFixture, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { UPSTREAM_ENTRY_CONFIG, writeAutoModeConfig } from './auto-mode-node.ts';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let daemonStopped = false;
let entryPath: string;
const logs: { outcome?: string }[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, 'foreign-entry-config');
  node = await createNodeFixture();
  const autoMode = await writeAutoModeConfig(node);
  entryPath = autoMode.entryPath;
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(JSON.parse(line) as { outcome?: string }) });
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

describe('stopping the daemon after another writer replaced 00-multus.conf', () => {
  it('leaves the other writer’s file in place, byte for byte', async () => {
    expect(readFileSync(entryPath, 'utf8')).toContain(`"clusterNetwork":"${join(node.confDir, '10-primary.conflist')}"`);
    // Right after one of the daemon's periodic checks, so that none runs (and restores its own file) before the stop.
    const checks = logs.filter((line) => line.outcome === 'unchanged').length;
    for (let waited = 0; logs.filter((line) => line.outcome === 'unchanged').length === checks; waited += 20) {
      if (waited > 30_000) throw new Error('still waiting for a periodic check of 00-multus.conf');
      await delay(20);
    }
    await writeFile(entryPath, UPSTREAM_ENTRY_CONFIG);
    daemonStopped = true;
    await daemon.stop();
    expect(await readFile(entryPath, 'utf8')).toBe(UPSTREAM_ENTRY_CONFIG);
  }, 60_000);
});
