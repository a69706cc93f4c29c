import { serializeJson } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { EffectiveNetConf } from '../daemon-config.ts';
import { findConfByName, readConfPath } from '../pipeline/conf-files.ts';

/** The plugin types one CNI configuration runs: each plugin's type and its IPAM type. */
export function pluginTypes(bytes: string): string[] {
  const conf = JSON.parse(bytes) as Record<string, unknown>;
  const plugins = Array.isArray(conf['plugins']) ? (conf['plugins'] as unknown[]) : [conf];
  const types = plugins.flatMap((plugin) => {
    if (typeof plugin !== 'object' || plugin === null) return [];
    const { type, ipam } = plugin as { type?: unknown; ipam?: unknown };
    return [type, typeof ipam === 'object' && ipam !== null ? (ipam as { type?: unknown }).type : undefined].filter(
      (value): value is string => typeof value === 'string' && value !== '',
    );
  });
  return [...new Set(types)];
}

async function fromFile(read: ReturnType<typeof readConfPath>): Promise<string> {
  const result = await read;
  if (!result.ok) throw result.error;
  return result.value.bytes;
}

/**
 * The cluster network's configuration bytes, found as the daemon finds them: a path when the name has a
 * "/", else the NAD of that name in the Multus namespace (its spec.config, or the CNI file of its name),
 * else the CNI file of that network name in confDir. Inline delegates serve when no clusterNetwork is set.
 */
export async function clusterNetworkConfig(conf: EffectiveNetConf, client: KubeClient): Promise<string> {
  const name = conf.clusterNetwork;
  if (name === '') {
    const first = conf.delegates[0];
    if (first === undefined) throw new Error('neither clusterNetwork nor delegates is set');
    return serializeJson(first);
  }
  if (name.includes('/')) return fromFile(readConfPath(name));
  try {
    const nad = await client.get<KubeObject & { spec?: { config?: string } }>(resourceTypes.networkAttachmentDefinition, {
      namespace: conf.multusNamespace,
      name,
    });
    const config = nad.spec?.config ?? '';
    return config === '' ? await fromFile(findConfByName(conf.confDir, name)) : config;
  } catch (error) {
    if (!isApiError(error, 'NotFound')) throw error;
    return fromFile(findConfByName(conf.confDir, name));
  }
}
