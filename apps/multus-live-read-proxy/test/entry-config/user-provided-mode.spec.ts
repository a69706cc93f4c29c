// A user-provided multusConfigFile as a node runs it: the daemon copies the operator's file into the CNI
// configuration directory at start, the runtime hands that copy to the unchanged upstream multus-shim
// (v4.2.3), and the shim finds our daemon through the socket directory named in it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { EntryConfigError } from '../../src/entry-config/entry-config-error.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { shimEnv, writeFixtureDaemonConfig } from '../daemon/daemon-fixture.ts';

const NS = 'user-entry-config';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let daemonStopped = false;
let source: string;
let installedPath: string;
let userConf: string;
let readinessIndicator: string;
const logs: { level: number; msg: string }[] = [];

const startFlags = (config: string) => ({ config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 });

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  await mkdir(join(node.root, 'site'));
  source = join(node.root, 'site', '70-site-multus.conf');
  installedPath = join(node.confDir, '70-site-multus.conf');
  readinessIndicator = join(node.root, 'primary-ready');
  userConf = `{\n  "cniVersion": "1.1.0",\n  "name": "multus-cni-network",\n  "type": "multus-shim",\n  "daemonSocketDir": "${join(node.root, 'run-multus')}"\n}\n`;
  await writeFile(source, userConf);
  const { config } = await writeFixtureDaemonConfig(node, {
    config: { cniVersion: '1.1.0', cniConfigDir: node.confDir, multusConfigFile: source, readinessindicatorfile: readinessIndicator },
  });
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as { level: number; msg: string }) });
  daemon = await startDaemon(startFlags(config), { logger, resultCacheDir: node.resultCacheDir });
}, 120_000);

afterAll(async () => {
  if (!daemonStopped) await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('a daemon started with a user-provided multusConfigFile', () => {
  it('has copied the file into the CNI configuration directory under its own name, byte for byte, and said so', async () => {
    expect(daemon.entryConfigPath).toBe(installedPath);
    expect(await readFile(installedPath, 'utf8')).toBe(userConf);
    // No generated 00-multus.conf beside it: that is auto mode's.
    expect((await readdir(node.confDir)).sort()).toEqual(['10-primary.conflist', '70-site-multus.conf']);
    expect(logs).toContainEqual(expect.objectContaining({ level: 30, msg: `copied ${source} to ${installedPath}` }));
  });

  it('checks daemon-config’s readiness indicator on each request, as upstream does outside auto mode', async () => {
    const env = { CNI_COMMAND: 'STATUS', CNI_PATH: node.binDirs[1] ?? '', PATH: process.env['PATH'] ?? '' };
    const missing = await runShim(env, await readFile(installedPath));
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toContain(`ReadinessIndicatorMissing: the readiness indicator file ${readinessIndicator} does not exist`);
    await writeFile(readinessIndicator, '');
    const ready = await runShim(env, await readFile(installedPath));
    expect({ code: ready.code, stdout: ready.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('serves the upstream shim run with the installed file: an ADD reaches the primary network, DEL removes it', async () => {
    const pod = await createPod(cp.adminClient, NS, 'web');
    const sandbox = createSandbox();
    const who = { namespace: NS, name: 'web', uid: pod.metadata.uid };
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-web', sandbox.path, who), await readFile(installedPath));
      expect({ code: add.code, stderr: add.stderr, stdout: add.code === 0 ? '' : add.stdout }).toEqual({ code: 0, stderr: '', stdout: '' });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      const del = await runShim(shimEnv(node, 'DEL', 'c-web', sandbox.path, who), await readFile(installedPath));
      expect(del.code).toBe(0);
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });

  it('leaves the installed file in place when it stops, as upstream does: it is the operator’s', async () => {
    daemonStopped = true;
    await daemon.stop();
    expect(await readFile(installedPath, 'utf8')).toBe(userConf);
  });
});

describe('a daemon whose multusConfigFile cannot be installed', () => {
  it('does not start: the error names the file, and no socket is served', async () => {
    const dir = join(node.root, 'refused');
    const missing = join(node.root, 'site', 'missing.conf');
    const { config, socketDir } = await writeFixtureDaemonConfig(node, { dir, config: { cniConfigDir: node.confDir, multusConfigFile: missing } });
    const before = (await readdir(node.confDir)).sort();
    const failure = await startDaemon(startFlags(config), { logger: pino({ level: 'silent' }) }).then(
      async (started) => {
        await started.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EntryConfigError);
    expect({ code: (failure as EntryConfigError).code, subject: (failure as EntryConfigError).subject }).toEqual({
      code: 'UnreadableUserCniConfig',
      subject: missing,
    });
    expect(await readdir(socketDir)).toEqual([]);
    expect((await readdir(node.confDir)).sort()).toEqual(before);
  });
});
