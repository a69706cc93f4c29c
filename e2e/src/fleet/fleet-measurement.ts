// The fleet's costs over a window: API requests from the audit log, kube-apiserver's CPU and memory from
// /proc, watches and stored objects from the API server's and etcd's metrics; and the two propagation
// times of one policy change (the operator's reconcile, every driver's republish).
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { waitFor } from '@sriov-dra/k8s/testing';
import { OPERATOR_NAMESPACE } from '../stack/stack.ts';
import { type ApiLoad, type FleetAuditEvent, apiLoad, nodeRate, requestsOf } from './api-load.ts';
import type { Fleet } from './fleet.ts';
import { REVISION_ATTRIBUTE, attributesCarry, changeRailPolicy, publishedValues } from './fleet-rails.ts';
import { type ServerSnapshot, coresBetween, processUsage, serverSnapshot } from './server-cost.ts';

export function readAudit(path: string): FleetAuditEvent[] {
  const text = fs.readFileSync(path, 'utf8');
  // A line still being written has no newline yet.
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FleetAuditEvent);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WindowFigures {
  readonly load: ApiLoad;
  /** Requests per second of each node's driver and Multus daemon together. */
  readonly perNode: { readonly mean: number; readonly min: number; readonly max: number };
  readonly apiServerCores: number;
  readonly apiServerRssBytes: number;
  /** The machine's 1-minute load average at the window's end (2 cores shared with other work). */
  readonly machineLoad: number;
}

/** The fleet's load while `during` runs (or for `seconds` of rest). */
export async function measureWindow(fleet: Fleet, during: () => Promise<unknown>): Promise<WindowFigures> {
  const from = new Date();
  const before = processUsage(fleet.apiServerPid);
  await during();
  const to = new Date();
  const after = processUsage(fleet.apiServerPid);
  // Every request received in the window is in the log by now (blocking mode writes on receipt).
  const requests = requestsOf(readAudit(fleet.cluster.auditLog?.path ?? ''));
  const names = fleet.nodes.map((node) => node.name);
  const load = apiLoad(requests, { from, to }, fleet.identities, names);
  const rates = names.map((name) => nodeRate(load, name));
  return {
    load,
    perNode: {
      mean: rates.reduce((sum, rate) => sum + rate, 0) / Math.max(1, rates.length),
      min: Math.min(...rates),
      max: Math.max(...rates),
    },
    apiServerCores: coresBetween(before, after),
    apiServerRssBytes: after.rssBytes,
    machineLoad: os.loadavg()[0] ?? Number.NaN,
  };
}

export function rest(seconds: number): () => Promise<void> {
  return () => sleep(seconds * 1000);
}

export async function snapshot(fleet: Fleet): Promise<ServerSnapshot> {
  return serverSnapshot(fleet.admin, fleet.controlPlane.etcdEndpoint);
}

export interface PolicyChangeFigures {
  /** Policy patched to the operator's DeviceAttributes carrying the change (polled every 100 ms). */
  readonly reconcileMs: number;
  /** The DeviceAttributes change to every node's ResourceSlices carrying it. */
  readonly republishMs: number;
}

/** Changes one rail policy's custom attribute to `value` and times both propagation steps. */
export async function measurePolicyChange(fleet: Fleet, value: string): Promise<PolicyChangeFigures> {
  const rail = fleet.rails[0];
  if (rail === undefined) throw new Error('the fleet has no rails');
  const changed = performance.now();
  await changeRailPolicy(fleet.admin, OPERATOR_NAMESPACE, rail, value);
  await waitFor(
    'the operator to carry the policy change into its DeviceAttributes',
    () => attributesCarry(fleet.admin, OPERATOR_NAMESPACE, REVISION_ATTRIBUTE, value),
    {
      timeoutMs: 120_000,
    },
  );
  const reconciled = performance.now();
  const names = fleet.nodes.map((node) => node.name);
  await waitFor(
    'every driver to republish its ResourceSlices with the change',
    async () => {
      const published = await publishedValues(fleet.admin, REVISION_ATTRIBUTE);
      return names.every((name) => published.get(name)?.has(value) === true);
    },
    { timeoutMs: 180_000 },
  );
  return { reconcileMs: reconciled - changed, republishMs: performance.now() - reconciled };
}
