// What both demos share: the running commentary, the verdict over the table and the teardown, and the run
// itself (start, demo, stop keeping the logs of a failure, wall time, exit code).
import { performance } from 'node:perf_hooks';
import type { Leftovers } from '../stack/leftovers.ts';
import { leftoverCount } from '../stack/leftovers.ts';
import type { PodNetworkRow } from './pod-networks.ts';

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The demo's verdict: each pair on one PCIe root with its address in the sandbox, two rails, `inspect` succeeded, nothing left. */
export function demoVerdict(rows: readonly PodNetworkRow[], inspectStatus: number | null, left: Leftovers): boolean {
  const clean = leftoverCount(left) === 0;
  say(clean ? '   nothing left: no shadow, finalizer, IP allocation or lease; all 16 VFs back on the host' : `   LEFT BEHIND: ${JSON.stringify(left)}`);
  const paired =
    rows.length === 2 && rows.every((row) => row.vfRoot !== '' && row.vfRoot === row.pairedRoot && row.ip !== '' && row.sandboxIps.includes(row.ip));
  const twoRails = new Set(rows.map((row) => row.rail)).size === 2;
  const ok = paired && twoRails && inspectStatus === 0 && clean;
  if (!ok) say(`\nFAILED: pairs on one root ${String(paired)}, two rails ${String(twoRails)}, inspect exit ${String(inspectStatus)}, clean ${String(clean)}`);
  return ok;
}

/** Starts the stack, runs the demo on it, stops it (keeping its logs when the demo failed) and sets the exit code. */
export async function runDemo<S extends { stop(keepLogs?: boolean): Promise<void> }>(
  banner: string,
  mode: string,
  start: (log: (line: string) => void) => Promise<S>,
  demo: (stack: S) => Promise<boolean>,
): Promise<void> {
  const started = performance.now();
  say(banner);
  const stack = await start((line) => {
    say(`   ${line}`);
  });
  let ok = false;
  try {
    ok = await demo(stack);
  } finally {
    await stack.stop(!ok);
  }
  say(`\n== done in ${(Math.round(performance.now() - started) / 1000).toFixed(1)} s (${mode})`);
  process.exitCode = ok ? 0 : 1;
}
