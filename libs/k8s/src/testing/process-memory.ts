import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** A live process's resident set (VmRSS), in MiB. */
export function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match?.[1] === undefined) throw new Error(`no VmRSS for process ${String(pid)}`);
  return Number(match[1]) / 1024;
}

/**
 * A service's idle memory for the benchmarks: its RSS read every second from `settleMs` to
 * `settleMs + windowMs` after `from` (a performance.now() instant, e.g. when /readyz first passed), as the
 * window's median and maximum in MiB. Reading once right after start would count startup garbage the
 * heap has not compacted yet.
 */
export async function idleResidentMiB(pid: number | undefined, from: number, settleMs: number, windowMs: number): Promise<{ median: number; max: number }> {
  await delay(Math.max(0, from + settleMs - performance.now()));
  const samples: number[] = [];
  while (performance.now() < from + settleMs + windowMs) {
    samples.push(residentMiB(pid));
    await delay(1_000);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)] ?? Number.NaN, max: samples.at(-1) ?? Number.NaN };
}
