// A node as preflight sees it, on real files: a CNI configuration directory with a primary network, a
// daemon-config.json in auto mode, plugin binaries, and the real daemon started on that configuration.
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { type BuildIdentity, buildIdentity } from '../../src/preflight/build-identity.ts';
import type { PreflightCheck } from '../../src/preflight/checks.ts';

/** A fixed commit for preflight and daemon alike: the checkout's HEAD moves while tests run. */
export const TEST_COMMIT = '0123456789abcdef0123456789abcdef01234567';
export const TEST_ENV: Readonly<Record<string, string>> = { SRIOV_DRA_GIT_COMMIT: TEST_COMMIT };

/** The identity preflight computes with TEST_ENV. */
export function testIdentity(): Promise<BuildIdentity> {
  return buildIdentity(TEST_ENV);
}

export interface NodeConfigOptions {
  readonly binDir: string;
  readonly cniDir: string;
  readonly live?: boolean;
  /** '' (default): delegates run in the daemon's own root. */
  readonly chrootDir?: string;
}

export interface NodeConfig {
  readonly dir: string;
  /** daemon-config.json. */
  readonly config: string;
  /** The CNI configuration directory, where the daemon writes 00-multus.conf. */
  readonly cniConfigDir: string;
  readonly socketDir: string;
}

/** A node directory under `root`: the primary network runs bridge with host-local, and the daemon's socket is its own. */
export async function writeNodeConfig(root: string, name: string, options: NodeConfigOptions): Promise<NodeConfig> {
  const dir = join(root, name);
  const cniConfigDir = join(dir, 'net.d');
  const socketDir = join(dir, 'run-multus');
  await rm(dir, { recursive: true, force: true });
  await mkdir(cniConfigDir, { recursive: true });
  await writeFile(
    join(cniConfigDir, '10-primary.conflist'),
    JSON.stringify({ cniVersion: '1.0.0', name: 'primary', plugins: [{ type: 'bridge', ipam: { type: 'host-local', subnet: '10.88.0.0/16' } }] }),
  );
  const config = join(dir, 'daemon-config.json');
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.0.0',
      cniConfigDir,
      multusConfigFile: 'auto',
      binDir: options.binDir,
      cniDir: options.cniDir,
      chrootDir: options.chrootDir ?? '',
      socketDir,
      daemonSocketDir: socketDir,
      multusNamespace: 'kube-system',
      liveNetworkConfigOnAdd: options.live ?? true,
    }),
  );
  return { dir, config, cniConfigDir, socketDir };
}

/** The real daemon on that configuration, reporting `identity` (default: the one preflight computes in tests). */
export async function startNodeDaemon(node: NodeConfig, kubeconfig: string, identity?: BuildIdentity): Promise<Daemon> {
  return startDaemon(
    { config: node.config, nodeName: 'worker-a', kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger: pino({ level: 'silent' }), buildIdentity: identity ?? (await testIdentity()) },
  );
}

export async function installPlugins(binDir: string, types: readonly string[]): Promise<void> {
  await mkdir(binDir, { recursive: true });
  for (const type of types) {
    await writeFile(join(binDir, type), '#!/bin/sh\nexit 0\n');
    await chmod(join(binDir, type), 0o755);
  }
}

export const statuses = (checks: readonly PreflightCheck[]): Record<string, string> => Object.fromEntries(checks.map((check) => [check.id, check.status]));

export function check(checks: readonly PreflightCheck[], id: string): PreflightCheck {
  const found = checks.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no ${id} check among ${checks.map((entry) => entry.id).join(', ')}`);
  return found;
}
