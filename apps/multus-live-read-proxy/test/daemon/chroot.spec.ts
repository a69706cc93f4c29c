// daemon-config.json's chrootDir through the whole daemon: the unchanged upstream multus-shim (v4.2.3) hands
// ADD, DEL, STATUS and GC to our daemon, which runs the cluster network's plugin chrooted into the root the
// file names, so what the plugin writes at its absolute path lands in that root, as delegate and IPAM
// state lands on the host under the chart's /hostroot. A chrootDir the daemon cannot use stops its start.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type ControlPlane, createNamespace, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { DaemonConfigError } from '../../src/daemon-config.ts';
import { type ChrootRoot, MARKER, RECORDER_TYPE, createChrootRoot } from '../cni/chroot-root.ts';
import { NODE, createPod } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'chrooted';

let cp: ControlPlane;
let work: string;

/** A daemon-config.json of its own directory under `work`, naming `chrootDir`. */
async function daemonConfig(name: string, chrootDir: string, binDir: string): Promise<{ config: string; socketDir: string }> {
  const dir = join(work, name);
  const confDir = join(dir, 'net.d');
  const socketDir = join(dir, 'run-multus');
  await mkdir(confDir, { recursive: true });
  await mkdir(socketDir, { recursive: true });
  await writeFile(join(confDir, '10-rooted.conflist'), JSON.stringify({ cniVersion: '1.1.0', name: 'rooted', plugins: [{ type: RECORDER_TYPE }] }));
  const config = join(dir, 'daemon-config.json');
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.1.0',
      chrootDir,
      socketDir,
      binDir,
      confDir,
      cniDir: join(dir, 'multus-cache'),
      // Auto mode writes the node's entry configuration here, not into the host's /etc/cni/net.d.
      cniConfigDir: join(dir, 'entry'),
      multusAutoconfigDir: confDir,
      clusterNetwork: 'rooted',
      multusNamespace: 'kube-system',
      liveNetworkConfigOnAdd: true,
    }),
  );
  return { config, socketDir };
}

function start(config: string): Promise<Daemon> {
  return startDaemon(
    { config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger: pino({ level: 'silent' }) },
  );
}

beforeAll(async () => {
  cp = await startControlPlane();
  await createNamespace(cp.adminClient, NS);
  work = await mkdtemp(join(tmpdir(), 'sriovdra-daemon-chroot-'));
}, 120_000);

afterAll(async () => {
  await cp.stop();
  await rm(work, { recursive: true, force: true });
});

describe('a daemon with a chrootDir', () => {
  let root: ChrootRoot;
  let daemon: Daemon;
  let socketDir: string;

  const shimConfig = (): string => JSON.stringify({ cniVersion: '1.1.0', name: 'multus-cni-network', type: 'multus-shim', daemonSocketDir: socketDir });
  const shimEnv = (command: string, extra: Record<string, string> = {}): Record<string, string> => ({
    CNI_COMMAND: command,
    CNI_PATH: root.binDir,
    PATH: process.env['PATH'] ?? '',
    ...extra,
  });

  beforeAll(async () => {
    root = await createChrootRoot(join(work, 'node'));
    let config: string;
    ({ config, socketDir } = await daemonConfig('daemon', root.dir, root.binDir));
    daemon = await start(config);
  });

  afterAll(async () => {
    await daemon.stop();
  });

  it('runs the cluster network’s plugin inside it for ADD, DEL, STATUS and GC: it sees the root’s files and writes there, nothing on the host', async () => {
    const pod = await createPod(cp.adminClient, NS, 'rooted-pod');
    const attachment = {
      CNI_CONTAINERID: 'c-rooted',
      CNI_NETNS: '/var/run/netns/c-rooted',
      CNI_IFNAME: 'eth0',
      CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${NS};K8S_POD_NAME=rooted-pod;K8S_POD_INFRA_CONTAINER_ID=c-rooted;K8S_POD_UID=${pod.metadata.uid}`,
    };

    const add = await runShim(shimEnv('ADD', attachment), shimConfig());
    expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(add.stdout) as { dns?: unknown }).dns).toEqual({ domain: MARKER });
    for (const command of ['DEL', 'STATUS', 'GC']) {
      const run = await runShim(command === 'DEL' ? shimEnv(command, attachment) : shimEnv(command), shimConfig());
      expect({ command, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ command, code: 0, stdout: '', stderr: '' });
    }

    expect(await root.callsInRoot()).toEqual(['ADD:c-rooted', 'DEL:c-rooted', 'STATUS:', 'GC:']);
    expect(root.loggedOnHost()).toBe(false);
  });
});

describe('a chrootDir the daemon cannot use', () => {
  it.each([
    ['does not exist', 'absent-root', 'does not exist'],
    ['is a file', 'file-root', 'is not a directory'],
  ])('stops the start when it %s, naming the key and the path', async (_case, name, detail) => {
    const chrootDir = join(work, name);
    if (name === 'file-root') await writeFile(chrootDir, 'not a directory');
    const { config } = await daemonConfig(`refused-${name}`, chrootDir, join(work, 'bin'));

    const error = await start(config).then(
      async (daemon) => {
        await daemon.stop();
        return 'started';
      },
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(DaemonConfigError);
    expect(error).toMatchObject({ code: 'InvalidChrootDir', subject: `${config} key "chrootDir"` });
    expect((error as Error).message).toBe(
      `InvalidChrootDir: ${config} key "chrootDir": ${chrootDir} ${detail} \u2014 mount the host’s root filesystem at chrootDir (as upstream’s and this chart’s DaemonSets do at /hostroot), or remove chrootDir to run delegates in the daemon’s own filesystem`,
    );
  });
});
