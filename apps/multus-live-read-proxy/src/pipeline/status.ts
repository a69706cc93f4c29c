import type { NetworkCommandOptions } from '../cni/status-gc.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import { type AddSettings, loadClusterNetwork } from './add.ts';
import { checkReadinessIndicator } from './readiness-indicator.ts';

/** What STATUS and GC need of a request's settings. */
export interface ClusterNetworkSettings extends Pick<AddSettings, 'plan' | 'confDir' | 'binDirs' | 'chrootDir' | 'delegateTimeoutMs'> {
  /** Multus's readinessindicatorfile: the cluster network is not ready before it exists ('' for none). */
  readonly readinessIndicatorFile: string;
}

export interface StatusEffects {
  readonly reader: PodNetworkReader;
  statusNetwork(bytes: Uint8Array, options: Required<NetworkCommandOptions>): Promise<void>;
}

/**
 * What STATUS and GC do first, as Multus does: the readiness indicator file must exist, then the cluster
 * network is resolved as ADD resolves a Pod's master. Upstream polls for the file for up to 45 s; STATUS
 * is the runtime's readiness probe, so it is answered now and the runtime asks again.
 */
export async function readyClusterNetwork(
  settings: ClusterNetworkSettings,
  reader: PodNetworkReader,
  signal: AbortSignal,
): Promise<{ name: string; bytes: Uint8Array }> {
  await checkReadinessIndicator(settings.readinessIndicatorFile);
  const network = await loadClusterNetwork(settings, reader, signal);
  return { name: network.name, bytes: Buffer.from(network.bytes, 'utf8') };
}

/**
 * CNI STATUS (Multus's CmdStatus): the readiness indicator, then libcni STATUS on the cluster network
 * only — the networks Pods select are not the node's to vouch for. Any failure fails STATUS.
 */
export async function runStatus(settings: ClusterNetworkSettings, effects: StatusEffects, signal: AbortSignal): Promise<void> {
  const network = await readyClusterNetwork(settings, effects.reader, signal);
  await effects.statusNetwork(network.bytes, { binDirs: settings.binDirs, chrootDir: settings.chrootDir, timeoutMs: settings.delegateTimeoutMs, signal });
}
