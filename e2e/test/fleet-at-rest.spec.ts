// The fleet's acceptance at rest (§10.2), counted at the API server (its audit log): two nodes, one with
// Pods resting on it and one without. Over a window longer than the driver's periods (the repair pass and
// the slice resync, 60 s each), after startup no product component lists anything beyond its own node, and
// each node's agents make the same requests whatever the node holds and the other node does. The costs
// against N and Pods per node are measured by `npm run bench:fleet`, never here.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ListRequest, NODE_COMPONENTS } from '../src/fleet/api-load.ts';
import { type Fleet, startFleet } from '../src/fleet/fleet.ts';
import { measureWindow, rest } from '../src/fleet/fleet-measurement.ts';
import { placeResting } from '../src/fleet/fleet-workload.ts';
import { WORKLOADS } from '../src/stack/stack.ts';

/** The driver's longest period at rest (repair pass, slice resync): the window covers at least one of each. */
const PERIOD_S = 60;
const WINDOW_S = PERIOD_S + 5;
/** Pods resting on the busy node; the quiet node has none. */
const RESTING_PODS = 4;
/**
 * Start-up reads, the resting Pods' preparation and the driver's first two repair passes after it stay out
 * of the window: the first reads each new Pod and its claim live and reports Multus's network status into
 * the claim, the second reads them live again and finds them verified; from then on a pass reads nothing.
 */
const SETTLE_MS = (2 * PERIOD_S + 5) * 1000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describeList(list: ListRequest): string {
  return `${list.component}${list.node === undefined ? '' : ` on ${list.node}`}: ${String(list.count)}× ${list.requestURI}`;
}

describe('a fleet of two nodes at rest', () => {
  let fleet: Fleet;
  let passed = true;

  beforeAll(async () => {
    fleet = await startFleet();
    await fleet.grow(2);
  }, 300_000);

  afterAll(async () => {
    await fleet.stop(!passed);
  }, 120_000);

  it('lists nothing beyond a node’s own objects, and each node’s requests do not depend on the Pods it or the other node holds', async () => {
    passed = false;
    const [quiet, busy] = fleet.nodes;
    if (quiet === undefined || busy === undefined) throw new Error('the fleet has fewer than two nodes');
    await placeResting(fleet.admin, WORKLOADS, [busy], RESTING_PODS, 'busy');
    await sleep(SETTLE_MS);
    const { load } = await measureWindow(fleet, rest(WINDOW_S));

    // No product component reads fleet-wide at rest: what it lists would grow with the fleet.
    expect(load.lists.filter((list) => list.scope === 'fleet').map(describeList)).toEqual([]);
    // A node-scoped LIST (the slice pass reads its own node's slices) at most once per pass: one or two
    // passes fall into a window of one period and a bit.
    const passes = Math.floor(WINDOW_S / PERIOD_S) + 1;
    expect(load.lists.filter((list) => list.count > passes).map(describeList)).toEqual([]);

    // The same requests from both nodes' driver and Multus daemon: the busy node's Pods add none at rest.
    // Periodic work may fall into the window once more on one node than on the other (timer phase).
    const product = (node: string): Record<string, number> =>
      Object.fromEntries(
        Object.entries(load.nodeRequests[node] ?? {}).filter(([kind]) =>
          NODE_COMPONENTS.some((component) => component !== 'kubelet' && kind.startsWith(`${component} `)),
        ),
      );
    const quietRequests = product(quiet.name);
    const busyRequests = product(busy.name);
    const kinds = [...new Set([...Object.keys(quietRequests), ...Object.keys(busyRequests)])].sort();
    const differing = kinds.filter((kind) => Math.abs((quietRequests[kind] ?? 0) - (busyRequests[kind] ?? 0)) > 1);
    expect(
      differing.map((kind) => `${kind}: ${String(quietRequests[kind] ?? 0)} on the quiet node, ${String(busyRequests[kind] ?? 0)} on the busy one`),
    ).toEqual([]);
    passed = true;
  }, 360_000);
});
