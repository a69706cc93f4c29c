// The daemon in auto mode on a node fixture, as the chart configures it: its daemon-config.json (no
// clusterNetwork: the primary network reaches each request only through the generated 00-multus.conf) and
// where that file goes; and what upstream's thick daemon writes there instead, for the migration specs.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import type { NodeFixture } from '../pipeline/node-fixture.ts';

/** What upstream's thick daemon (v4.2.3) writes as a node's 00-multus.conf: the shim, without liveNetworkConfigOnAdd. */
export const UPSTREAM_ENTRY_CONFIG = JSON.stringify({
  cniVersion: '1.0.0',
  name: 'multus-cni-network',
  type: 'multus-shim',
  clusterNetwork: '/host/etc/cni/net.d/10-primary.conflist',
  daemonSocketDir: '/run/multus',
});

export interface AutoModeNode {
  /** daemon-config.json. */
  readonly config: string;
  readonly socketDir: string;
  /** The 00-multus.conf the daemon generates. */
  readonly entryPath: string;
}

export async function writeAutoModeConfig(node: NodeFixture): Promise<AutoModeNode> {
  const socketDir = join(node.root, 'run-multus');
  await mkdir(socketDir, { recursive: true });
  const config = join(node.root, 'daemon-config.json');
  await writeFile(
    config,
    JSON.stringify({
      cniVersion: '1.0.0',
      socketDir,
      daemonSocketDir: socketDir,
      binDir: join(cacheRoot(), 'cni', 'bin'),
      confDir: node.confDir,
      cniDir: node.cniDir,
      cniConfigDir: node.confDir,
      multusConfigFile: 'auto',
      liveNetworkConfigOnAdd: true,
    }),
  );
  return { config, socketDir, entryPath: join(node.confDir, '00-multus.conf') };
}
