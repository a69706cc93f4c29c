// npm run bench:fleet [-- --nodes 1,5,10,25 --pods-per-node 2,8,16 --sweep-at 5 --rest-seconds 65
//   --churn-pods-per-second 1 --churn-seconds 30 --out bench-results/fleet]
// Grows one fleet through each node count, measuring at every size the API load at rest and under churn,
// watches, stored objects, kube-apiserver's CPU and memory, Pod-ready latency and a policy change's
// propagation; at the sweep size also the load at rest with Pods resting on every node. Writes the
// growth report (fleet.json, fleet.md, one SVG per axis) and every window's raw figures (fleet-stages.json).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type CostSeries, writeGrowthReport } from '../../../tools/bench/growth/growth-report.ts';
import { WORKLOADS } from '../stack/stack.ts';
import { PRODUCT_COMPONENTS, apiLoad, componentRate, requestsOf } from './api-load.ts';
import { type Fleet, startFleet } from './fleet.ts';
import { type PolicyChangeFigures, type WindowFigures, measurePolicyChange, measureWindow, readAudit, rest, snapshot } from './fleet-measurement.ts';
import { type ChurnFigures, churn, percentile, placeResting, removeWorkload } from './fleet-workload.ts';
import type { ServerSnapshot } from './server-cost.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1,5,10,25' },
    'pods-per-node': { type: 'string', default: '2,8,16' },
    'sweep-at': { type: 'string', default: '5' },
    'rest-seconds': { type: 'string', default: '65' },
    'churn-pods-per-second': { type: 'string', default: '1' },
    'churn-seconds': { type: 'string', default: '30' },
    out: { type: 'string', default: 'bench-results/fleet' },
  },
});

function numbers(text: string, what: string): number[] {
  const parsed = text.split(',').map(Number);
  if (parsed.some((value) => !Number.isInteger(value) || value < 0)) throw new Error(`--${what} ${text}: expected comma-separated whole numbers`);
  return parsed;
}

const nodeCounts = numbers(values.nodes, 'nodes').toSorted((a, b) => a - b);
const podsPerNode = numbers(values['pods-per-node'], 'pods-per-node').toSorted((a, b) => a - b);
const sweepAt = Number(values['sweep-at']);
const restSeconds = Number(values['rest-seconds']);
const churnRate = Number(values['churn-pods-per-second']);
const churnSeconds = Number(values['churn-seconds']);
const outDir = path.resolve(values.out);
/** After nodes join: their start-up reads stay out of the window at rest. */
const JOIN_SETTLE_MS = 15_000;
/**
 * After Pods are placed: their preparation and the driver's first two repair passes after it stay out too
 * (its period is 60 s): the first reads each new Pod and claim live and reports Multus's network status
 * into the claim, the second reads them live again and finds them verified; later passes read nothing.
 */
const PODS_SETTLE_MS = 125_000;

interface RestFigures {
  readonly window: WindowFigures;
  readonly server: ServerSnapshot;
}

interface Stage {
  readonly nodes: number;
  readonly rest: RestFigures;
  readonly churn: { readonly window: WindowFigures; readonly pods: ChurnFigures; readonly readyP50Ms: number; readonly readyP99Ms: number };
  readonly policyChange: PolicyChangeFigures;
  /** Pods per node to the load at rest with that many resting on every node. */
  readonly podsPerNode: Readonly<Record<string, RestFigures>>;
}

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function measureRest(fleet: Fleet, settleMs: number): Promise<RestFigures> {
  await sleep(settleMs);
  const window = await measureWindow(fleet, rest(restSeconds));
  return { window, server: await snapshot(fleet) };
}

async function measureStage(fleet: Fleet, nodes: number): Promise<Stage> {
  log(`${String(nodes)} node(s): ${String(restSeconds)} s at rest`);
  const atRest = await measureRest(fleet, JOIN_SETTLE_MS);
  const sweep: Record<string, RestFigures> = {};
  if (nodes === sweepAt) {
    for (const perNode of podsPerNode) {
      log(`${String(nodes)} node(s): ${String(perNode)} Pod(s) resting on each, ${String(restSeconds)} s`);
      await placeResting(fleet.admin, WORKLOADS, fleet.nodes, perNode, String(perNode));
      sweep[String(perNode)] = await measureRest(fleet, PODS_SETTLE_MS);
      await removeWorkload(fleet.admin, WORKLOADS);
    }
  }
  log(`${String(nodes)} node(s): churn, ${String(churnRate)} Pod/s for ${String(churnSeconds)} s`);
  let pods: ChurnFigures | undefined;
  const window = await measureWindow(fleet, async () => {
    pods = await churn(fleet.admin, WORKLOADS, fleet.nodes, { podsPerSecond: churnRate, seconds: churnSeconds, tag: String(nodes) });
  });
  if (pods === undefined) throw new Error('the churn did not finish');
  log(`${String(nodes)} node(s): one policy change`);
  const policyChange = await measurePolicyChange(fleet, `n${String(nodes)}`);
  return {
    nodes,
    rest: atRest,
    churn: { window, pods, readyP50Ms: percentile(pods.readyMs, 50), readyP99Ms: percentile(pods.readyMs, 99) },
    policyChange,
    podsPerNode: sweep,
  };
}

const MIB = 1024 * 1024;

function series(stages: readonly Stage[]): CostSeries[] {
  const byNodes = (cost: string, unit: string, y: (stage: Stage) => number | null): CostSeries => ({
    cost,
    unit,
    axis: 'nodes',
    points: stages.flatMap((stage) => {
      const value = y(stage);
      return value === null ? [] : [{ x: stage.nodes, y: value }];
    }),
  });
  const sweepStage = stages.find((stage) => stage.nodes === sweepAt);
  const byPods = (cost: string, unit: string, y: (figures: RestFigures) => number): CostSeries => ({
    cost,
    unit,
    axis: `pods per node (${String(sweepAt)} nodes)`,
    points:
      sweepStage === undefined
        ? []
        : [{ x: 0, y: y(sweepStage.rest) }, ...Object.entries(sweepStage.podsPerNode).map(([perNode, figures]) => ({ x: Number(perNode), y: y(figures) }))],
  });
  const all = [
    byNodes('API requests at rest per node (driver + Multus daemon)', 'req/s', (stage) => stage.rest.window.perNode.mean),
    byNodes('API requests at rest, operator', 'req/s', (stage) => componentRate(stage.rest.window.load, 'operator')),
    byNodes('API requests at rest, all clients', 'req/s', (stage) => stage.rest.window.load.total),
    byNodes('API requests under churn, all clients', 'req/s', (stage) => stage.churn.window.load.total),
    byNodes('API requests under churn per node (driver + Multus daemon)', 'req/s', (stage) => stage.churn.window.perNode.mean),
    byNodes('watches open', 'watches', (stage) => stage.rest.server.watchesOpen),
    byNodes('stored ResourceSlices', 'objects', (stage) => stage.rest.server.stored.resourceSlices.objects),
    byNodes('stored NADs (sources and shadows)', 'objects', (stage) => stage.rest.server.stored.nads.objects),
    byNodes('stored Leases', 'objects', (stage) => stage.rest.server.stored.leases.objects),
    byNodes('stored ResourceSlices, bytes', 'KiB', (stage) => stage.rest.server.stored.resourceSlices.bytes / 1024),
    byNodes('stored Leases, bytes', 'KiB', (stage) => stage.rest.server.stored.leases.bytes / 1024),
    byNodes('etcd database in use', 'MiB', (stage) => stage.rest.server.etcdDbInUseBytes / MIB),
    byNodes('kube-apiserver CPU at rest', 'cores', (stage) => stage.rest.window.apiServerCores),
    byNodes('kube-apiserver CPU under churn', 'cores', (stage) => stage.churn.window.apiServerCores),
    byNodes('kube-apiserver RSS at rest', 'MiB', (stage) => stage.rest.window.apiServerRssBytes / MIB),
    byNodes('Pod ready p50 under churn', 'ms', (stage) => stage.churn.readyP50Ms),
    byNodes('Pod ready p99 under churn', 'ms', (stage) => stage.churn.readyP99Ms),
    byNodes('operator reconcile after a policy change', 'ms', (stage) => stage.policyChange.reconcileMs),
    byNodes('every driver republished after a DeviceAttributes change', 'ms', (stage) => stage.policyChange.republishMs),
    byPods('API requests at rest per node (driver + Multus daemon)', 'req/s', (figures) => figures.window.perNode.mean),
    byPods('kube-apiserver CPU at rest', 'cores', (figures) => figures.window.apiServerCores),
    byPods('stored NADs (sources and shadows)', 'objects', (figures) => figures.server.stored.nads.objects),
    byPods('stored NADs, bytes', 'KiB', (figures) => figures.server.stored.nads.bytes / 1024),
  ];
  return all.filter((one) => one.points.length > 0);
}

/** Every LIST a product component issued at rest: the acceptance allows none. */
function listsAtRest(stages: readonly Stage[]): string[] {
  const windows = stages.flatMap((stage) => [
    { what: `${String(stage.nodes)} nodes at rest`, figures: stage.rest },
    ...Object.entries(stage.podsPerNode).map(([perNode, figures]) => ({ what: `${String(stage.nodes)} nodes, ${perNode} Pods each, at rest`, figures })),
  ]);
  return windows.flatMap(({ what, figures }) =>
    figures.window.load.lists.map(
      (list) =>
        `${what}: ${list.component}${list.node === undefined ? '' : ` on ${list.node}`} listed ${list.resource}${list.namespace === undefined ? '' : ` in ${list.namespace}`} (${list.scope === 'node' ? 'its node’s only' : 'fleet-wide'}) ${String(list.count)}×: ${list.requestURI}`,
    ),
  );
}

/** The watches the product's components opened over the whole run: by kind, with how many nodes opened each. */
function watchKinds(fleet: Fleet): string[] {
  const load = apiLoad(
    requestsOf(readAudit(fleet.cluster.auditLog?.path ?? '')),
    { from: new Date(0), to: new Date(Date.now() + 1000) },
    fleet.identities,
    fleet.nodes.map((node) => node.name),
  );
  const kinds = new Map<string, { nodes: Set<string>; count: number }>();
  for (const watch of load.watches) {
    const key = `${watch.component} watches ${watch.resource}${watch.namespace === undefined ? '' : ` in ${watch.namespace}`} (${watch.scope === 'node' ? 'its node’s only' : 'fleet-wide'})`;
    const entry = kinds.get(key) ?? { nodes: new Set<string>(), count: 0 };
    if (watch.node !== undefined) entry.nodes.add(watch.node);
    entry.count += watch.count;
    kinds.set(key, entry);
  }
  return [...kinds]
    .map(([key, entry]) => `${key}: ${String(entry.count)} opened${entry.nodes.size === 0 ? '' : ` by ${String(entry.nodes.size)} node(s)`}`)
    .sort();
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const fleet = await startFleet({ log });
  const stages: Stage[] = [];
  let watches: string[] = [];
  let failed = true;
  try {
    for (const nodes of nodeCounts) {
      log(`growing the fleet to ${String(nodes)} node(s)`);
      await fleet.grow(nodes);
      stages.push(await measureStage(fleet, nodes));
    }
    failed = false;
  } catch (error) {
    log(`stopped: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    // What each product component watches, over the whole run (the audit log goes with the control plane).
    watches = watchKinds(fleet);
    await fleet.stop(failed);
  }
  if (stages.length === 0) {
    process.exitCode = 1;
    return;
  }
  const report = writeGrowthReport(outDir, 'fleet', series(stages));
  const lists = listsAtRest(stages);
  const raw = path.join(outDir, 'fleet-stages.json');
  fs.writeFileSync(
    raw,
    `${JSON.stringify(
      {
        startedAt,
        endedAt: new Date(),
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryBytes: os.totalmem(), kernel: os.release() },
        settings: { nodeCounts, podsPerNode, sweepAt, restSeconds, churnRate, churnSeconds },
        productComponents: PRODUCT_COMPONENTS,
        listsAtRest: lists,
        watchesOpened: watches,
        stages,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`${fs.readFileSync(report.table, 'utf8')}\n`);
  process.stdout.write(`Watches opened by the product's components:\n${watches.map((line) => `  ${line}`).join('\n')}\n`);
  process.stdout.write(lists.length === 0 ? 'No LIST by a product component at rest.\n' : `LISTs at rest:\n${lists.map((line) => `  ${line}`).join('\n')}\n`);
  process.stdout.write(`${[report.json, report.table, ...report.plots, raw].join('\n')}\n`);
  if (failed) process.exitCode = 1;
}

await main();
