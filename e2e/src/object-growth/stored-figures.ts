// What the control plane stores, from its own /metrics: etcd's database size (all of it, and the part in
// use) and key count, and the API server's object counts and size estimates per resource.
import { setTimeout as delay } from 'node:timers/promises';
import { type ControlPlane, waitFor } from '@sriov-dra/k8s/testing';

export interface StoredFigures {
  /** etcd_mvcc_db_total_size_in_bytes: the file, old revisions and free pages included. */
  readonly etcdDbBytes: number;
  /** etcd_mvcc_db_total_size_in_use_in_bytes: what a defragmentation would keep. */
  readonly etcdDbInUseBytes: number;
  /** etcd_debugging_mvcc_keys_total: every key, of every resource. */
  readonly etcdKeys: number;
  readonly nads: number;
  readonly pods: number;
  /** apiserver_resource_size_estimate_bytes: the sum of the objects' last serialized sizes. */
  readonly nadBytes: number;
  readonly podBytes: number;
}

/** Each `name{labels} value` line of the Prometheus text format whose labels include `where`; summed. */
export function metricValue(text: string, name: string, where: Readonly<Record<string, string>> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match?.[1] !== name) continue;
    const labels = new Map([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1], label[2]]));
    if (!Object.entries(where).every(([key, value]) => labels.get(key) === value)) continue;
    sum = (sum ?? 0) + Number(match[3]);
  }
  return sum;
}

function required(value: number | undefined, what: string): number {
  if (value === undefined || !Number.isFinite(value)) throw new Error(`the control plane's /metrics reports no ${what}`);
  return value;
}

/** A per-resource gauge: the current name (apiserver_resource_*, 1.31+), else the deprecated one where there is one. */
function perResource(apiserver: string, name: string, deprecated: string | undefined, resource: string, group: string): number {
  const current = metricValue(apiserver, name, { resource, group });
  const old = deprecated === undefined ? undefined : metricValue(apiserver, deprecated, { resource: group === '' ? resource : `${resource}.${group}` });
  return required(current ?? old, `${name} for ${resource}`);
}

/**
 * The figures once the API server's object counts show `expected` (they are refreshed on a poll, once a
 * minute by default, so a count read right after a write is stale).
 */
export async function storedFigures(cp: ControlPlane, expected: { readonly nads: number; readonly pods: number }): Promise<StoredFigures> {
  let apiserver = '';
  const counts = () => ({
    nads: perResource(apiserver, 'apiserver_resource_objects', 'apiserver_storage_objects', 'network-attachment-definitions', 'k8s.cni.cncf.io'),
    pods: perResource(apiserver, 'apiserver_resource_objects', 'apiserver_storage_objects', 'pods', ''),
  });
  let probes = 0;
  await waitFor(
    `the API server's object counts at ${String(expected.nads)} NADs and ${String(expected.pods)} Pods`,
    async () => {
      // Every 2 s, not waitFor's 0.1 s: the API server's /metrics is megabytes of text to render.
      if (probes++ > 0) await delay(2_000);
      apiserver = (await cp.adminClient.request({ method: 'GET', path: '/metrics' })) as string;
      const now = counts();
      return now.nads === expected.nads && now.pods === expected.pods;
    },
    { timeoutMs: 150_000, describe: () => JSON.stringify(counts()) },
  );
  const etcd = await (await fetch(`${cp.etcdEndpoint}/metrics`)).text();
  return {
    etcdDbBytes: required(metricValue(etcd, 'etcd_mvcc_db_total_size_in_bytes'), 'etcd_mvcc_db_total_size_in_bytes'),
    etcdDbInUseBytes: required(metricValue(etcd, 'etcd_mvcc_db_total_size_in_use_in_bytes'), 'etcd_mvcc_db_total_size_in_use_in_bytes'),
    etcdKeys: required(metricValue(etcd, 'etcd_debugging_mvcc_keys_total'), 'etcd_debugging_mvcc_keys_total'),
    ...counts(),
    nadBytes: perResource(apiserver, 'apiserver_resource_size_estimate_bytes', undefined, 'network-attachment-definitions', 'k8s.cni.cncf.io'),
    podBytes: perResource(apiserver, 'apiserver_resource_size_estimate_bytes', undefined, 'pods', ''),
  };
}
