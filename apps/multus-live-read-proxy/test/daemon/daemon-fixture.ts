// Our daemon started on a node fixture as the shim-level tests and benchmarks need it, and what the
// container runtime hands the upstream multus-shim: its environment and its stdin configuration.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { NODE, type NodeFixture } from '../pipeline/node-fixture.ts';

export interface FixtureDaemon {
  readonly daemon: Daemon;
  /** The directory the shim's daemonSocketDir names. */
  readonly socketDir: string;
  readonly config: string;
}

export interface FixtureDaemonOptions {
  readonly kubeconfig: string;
  /** Where its socket, config and caches go; default: the fixture's root (one daemon per fixture). */
  readonly dir?: string;
  readonly liveNetworkConfigOnAdd?: boolean;
  /** Negative: no TCP endpoint; 0 picks a free port. */
  readonly metricsPort?: number;
  /** More daemon-config.json keys, over the defaults. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/**
 * Writes a daemon-config.json for the fixture — the real CNI plugins as binDir, the fixture's confDir with
 * its primary network as the cluster network — for a daemon started here or launched as its own process.
 */
export async function writeFixtureDaemonConfig(
  node: NodeFixture,
  options: Omit<FixtureDaemonOptions, 'kubeconfig' | 'metricsPort'>,
): Promise<{ config: string; socketDir: string }> {
  const dir = options.dir ?? node.root;
  const socketDir = join(dir, 'run-multus');
  await mkdir(socketDir, { recursive: true });
  const config = join(dir, 'daemon-config.json');
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.0.0',
      chrootDir: '',
      socketDir,
      binDir: join(cacheRoot(), 'cni', 'bin'),
      confDir: node.confDir,
      cniDir: options.dir === undefined ? node.cniDir : join(dir, 'multus-cache'),
      clusterNetwork: 'primary',
      multusNamespace: 'kube-system',
      liveNetworkConfigOnAdd: options.liveNetworkConfigOnAdd ?? true,
      ...options.config,
    }),
  );
  return { config, socketDir };
}

/** Our daemon started in this process on the fixture's daemon-config.json. */
export async function startFixtureDaemon(node: NodeFixture, options: FixtureDaemonOptions): Promise<FixtureDaemon> {
  const { config, socketDir } = await writeFixtureDaemonConfig(node, options);
  const daemon = await startDaemon(
    { config, nodeName: NODE, kubeconfig: options.kubeconfig, metricsPort: options.metricsPort ?? 0, kubeApiQps: 100, kubeApiBurst: 200 },
    // libcni's results go where the daemon puts them by default, as upstream does: <cniDir>/results.
    { logger: pino({ level: 'silent' }) },
  );
  return { daemon, socketDir, config };
}

/**
 * The shim's environment for one Pod sandbox. CNI_PATH names the sriov stand-in's directory: the daemon
 * searches its binDir (the real plugins), then the request's CNI_PATH.
 */
export function shimEnv(
  node: NodeFixture,
  command: string,
  containerID: string,
  netns: string,
  pod: { readonly namespace: string; readonly name: string; readonly uid?: string },
): Record<string, string> {
  const uid = pod.uid === undefined ? '' : `;K8S_POD_UID=${pod.uid}`;
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerID,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${pod.namespace};K8S_POD_NAME=${pod.name};K8S_POD_INFRA_CONTAINER_ID=${containerID}${uid}`,
    CNI_PATH: node.binDirs[1] ?? '',
    PATH: process.env['PATH'] ?? '',
  };
}

/** The runtime's configuration for the shim: the entry config of a thick-mode node. */
export function shimConfig(socketDir: string, cniVersion = '1.0.0', extra: Readonly<Record<string, unknown>> = {}): string {
  return JSON.stringify({ cniVersion, name: 'multus-cni-network', type: 'multus-shim', daemonSocketDir: socketDir, ...extra });
}
