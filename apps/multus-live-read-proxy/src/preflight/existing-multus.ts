import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { KubeObject } from '@sriov-dra/k8s';
import type { DaemonConfig } from '../daemon-config.ts';
import { ENTRY_CONFIG_FILE } from '../entry-config/entry-config.ts';
import type { EntryConfigFacts } from './managed-checks.ts';

/** The name upstream's manifests (thin, thick, crio) give the Multus DaemonSet, and the labels they carry. */
const UPSTREAM_NAME = 'kube-multus-ds';
const UPSTREAM_LABELS: readonly (readonly [string, string])[] = [
  ['app', 'multus'],
  ['name', 'multus'],
];

/** A DaemonSet deployed from an upstream Multus manifest (a renamed and relabelled copy aside). */
export function isUpstreamMultus(daemonSet: KubeObject): boolean {
  const labels = daemonSet.metadata.labels ?? {};
  return daemonSet.metadata.name === UPSTREAM_NAME || UPSTREAM_LABELS.some(([key, value]) => labels[key] === value);
}

/** What the file is, when it is not what this daemon writes. */
function describeForeign(bytes: string): string | undefined {
  let document: unknown;
  try {
    document = JSON.parse(bytes);
  } catch {
    return 'it is not JSON';
  }
  if (typeof document !== 'object' || document === null) return 'it is not a JSON object';
  const { type, kubeconfig, liveNetworkConfigOnAdd } = document as Record<string, unknown>;
  if (type !== 'multus-shim') return `its type is ${JSON.stringify(type)}${typeof kubeconfig === 'string' ? ', a thin-mode Multus configuration' : ''}`;
  if (liveNetworkConfigOnAdd === undefined) return 'it lacks liveNetworkConfigOnAdd, which this daemon writes: upstream Multus writes such a file';
  return undefined;
}

/**
 * Whether <cniConfigDir>/00-multus.conf is this daemon's: in auto mode the daemon writes exactly the
 * rendering of its configuration (`expected`, undefined when there is no primary network to render from);
 * otherwise it installs multusConfigFile under its own name, and a 00-multus.conf beside it that is not
 * that file is another writer's (the runtime takes the lexically first file).
 */
export async function entryConfigOwner(config: DaemonConfig, expected: string | undefined): Promise<EntryConfigFacts> {
  const path = join(config.cniConfigDir, ENTRY_CONFIG_FILE);
  let bytes: string;
  try {
    bytes = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, state: 'absent' };
    return { path, state: 'unknown', detail: `cannot read it: ${(error as Error).message}` };
  }
  if (config.multusConfigFile !== 'auto') {
    if (basename(config.multusConfigFile) !== ENTRY_CONFIG_FILE) {
      return {
        path,
        state: 'foreign',
        detail: `this daemon installs ${basename(config.multusConfigFile)}, which the runtime reads only after ${ENTRY_CONFIG_FILE}`,
      };
    }
    const source = await readFile(resolve(config.multusConfigFile), 'utf8').catch(() => undefined);
    if (source === bytes) return { path, state: 'ours' };
    return { path, state: 'foreign', detail: `it differs from ${config.multusConfigFile}, which this daemon installs there` };
  }
  if (bytes === expected) return { path, state: 'ours' };
  const foreign = describeForeign(bytes);
  if (foreign !== undefined) return { path, state: 'foreign', detail: foreign };
  if (expected === undefined) return { path, state: 'unknown', detail: 'there is no primary network configuration to render this daemon’s file from' };
  return { path, state: 'foreign', detail: 'it differs from what this daemon writes for the primary network' };
}
