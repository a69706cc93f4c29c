import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { NetworkCommandOptions } from '../cni/status-gc.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import { type AddSettings, loadClusterNetwork } from './add.ts';

/** What STATUS and GC need of a request's settings. */
export interface ClusterNetworkSettings extends Pick<AddSettings, 'plan' | 'confDir' | 'binDirs' | 'delegateTimeoutMs'> {
  /** Multus's readinessindicatorfile: the cluster network is not ready before it exists ('' for none). */
  readonly readinessIndicatorFile: string;
}

export interface StatusEffects {
  readonly reader: PodNetworkReader;
  statusNetwork(bytes: Uint8Array, options: NetworkCommandOptions): Promise<void>;
}

/** The configured readiness indicator file does not exist (yet). */
export class ReadinessIndicatorError extends Error {
  override readonly name = 'ReadinessIndicatorError';
  readonly code = 'ReadinessIndicatorMissing';
  readonly path: string;

  constructor(path: string, cause: unknown) {
    super(
      `ReadinessIndicatorMissing: the readiness indicator file ${path} does not exist (${String(cause)}) \u2014 the cluster network writes it once it is ready; check that network's own daemon`,
      { cause },
    );
    this.path = path;
  }
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
  if (settings.readinessIndicatorFile !== '') {
    const path = resolve(settings.readinessIndicatorFile);
    try {
      await stat(path);
    } catch (error) {
      throw new ReadinessIndicatorError(path, error);
    }
  }
  const network = await loadClusterNetwork(settings, reader, signal);
  return { name: network.name, bytes: Buffer.from(network.bytes, 'utf8') };
}

/**
 * CNI STATUS (Multus's CmdStatus): the readiness indicator, then libcni STATUS on the cluster network
 * only — the networks Pods select are not the node's to vouch for. Any failure fails STATUS.
 */
export async function runStatus(settings: ClusterNetworkSettings, effects: StatusEffects, signal: AbortSignal): Promise<void> {
  const network = await readyClusterNetwork(settings, effects.reader, signal);
  await effects.statusNetwork(network.bytes, { binDirs: settings.binDirs, timeoutMs: settings.delegateTimeoutMs, signal });
}
