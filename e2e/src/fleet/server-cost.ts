// The API server's and etcd's own view of the fleet: watches open from the API server's /metrics, etcd's
// database size from its own, objects stored counted in etcd itself (the API server's object-count metrics
// are refreshed only every minute or so); kube-apiserver's CPU time and resident memory from /proc.
import fs from 'node:fs';
import type { KubeClient } from '@sriov-dra/k8s';
import { parseSamples, sumOf } from './prometheus-text.ts';

/** Where etcd keeps the objects the fleet figures follow (kube-apiserver's default storage prefix). */
export const STORED_PREFIXES = {
  // Built-in kinds are stored under their resource name alone, custom resources under group and resource.
  resourceSlices: '/registry/resourceslices/',
  nads: '/registry/k8s.cni.cncf.io/network-attachment-definitions/',
  leases: '/registry/leases/',
  pods: '/registry/pods/',
} as const;

export type StoredKind = keyof typeof STORED_PREFIXES;

export interface Stored {
  readonly objects: number;
  /** Bytes of the stored values (protobuf for built-in kinds, JSON for custom resources). */
  readonly bytes: number;
}

export interface ServerSnapshot {
  /** Watches being served (apiserver_longrunning_requests, verb WATCH). */
  readonly watchesOpen: number;
  /** Objects and bytes in etcd by kind, read from etcd itself at the moment of the snapshot. */
  readonly stored: Readonly<Record<StoredKind, Stored>>;
  /** etcd's database size and the part of it in use. */
  readonly etcdDbBytes: number;
  readonly etcdDbInUseBytes: number;
}

/** Every key under `prefix` through etcd's HTTP gateway: how many, and their values' bytes. */
async function storedUnder(etcdEndpoint: string, prefix: string): Promise<Stored> {
  const key = Buffer.from(prefix);
  const end = Buffer.from(key);
  end[end.length - 1] = (end[end.length - 1] ?? 0) + 1;
  const response = await fetch(`${etcdEndpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: key.toString('base64'), range_end: end.toString('base64') }),
  });
  if (!response.ok) throw new Error(`etcd range ${prefix}: HTTP ${String(response.status)}`);
  const body = (await response.json()) as { count?: string; kvs?: readonly { value?: string }[] };
  const bytes = (body.kvs ?? []).reduce((sum, kv) => sum + Buffer.from(kv.value ?? '', 'base64').length, 0);
  return { objects: Number(body.count ?? 0), bytes };
}

export async function serverSnapshot(admin: KubeClient, etcdEndpoint: string): Promise<ServerSnapshot> {
  const api = parseSamples(String(await admin.request({ method: 'GET', path: '/metrics', timeoutMs: 30_000 })));
  const etcd = parseSamples(await (await fetch(`${etcdEndpoint}/metrics`)).text());
  const stored = {} as Record<StoredKind, Stored>;
  for (const [kind, prefix] of Object.entries(STORED_PREFIXES) as [StoredKind, string][]) stored[kind] = await storedUnder(etcdEndpoint, prefix);
  return {
    watchesOpen: sumOf(api, 'apiserver_longrunning_requests', { verb: 'WATCH' }),
    stored,
    etcdDbBytes: sumOf(etcd, 'etcd_mvcc_db_total_size_in_bytes'),
    etcdDbInUseBytes: sumOf(etcd, 'etcd_mvcc_db_total_size_in_use_in_bytes'),
  };
}

/** CPU seconds a process has used so far (user + system, /proc/<pid>/stat) and its resident memory. */
export interface ProcessUsage {
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  readonly at: number;
}

const CLOCK_TICKS = 100;

export function processUsage(pid: number): ProcessUsage {
  const stat = fs.readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return { cpuSeconds: ticks / CLOCK_TICKS, rssBytes: Number(rss?.[1] ?? Number.NaN) * 1024, at: performance.now() };
}

/** Cores used between two readings. */
export function coresBetween(before: ProcessUsage, after: ProcessUsage): number {
  return (after.cpuSeconds - before.cpuSeconds) / ((after.at - before.at) / 1000);
}
