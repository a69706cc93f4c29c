// A real node killed before its teardown (its test process killed) leaves its links, its Service NAT chain
// and its cgroup root on the host; the next run removes them when it takes the machine lock, before it
// records or changes anything. Here a killed run's leftovers are made by hand, under a lock left by a process
// that no longer runs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { lockMachine } from '../../src/real-node/real-node.ts';

/** A process id that no process has: the lock's holder, and the killed run's id in its names. */
const deadPid = (): number => spawnSync('true').pid;

const CGROUP_BASE = '/sys/fs/cgroup';
const hierarchies = (): string[] =>
  fs
    .readdirSync(CGROUP_BASE, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(CGROUP_BASE, entry.name));

/** Everything named like that run's on the host now. */
function leftovers(id: string): string[] {
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
  const nat = spawnSync('iptables-save', ['-t', 'nat'], { encoding: 'utf8' }).stdout;
  return [
    ...[...links.matchAll(/^\d+: (sdra[npt](\d+))[@:]/gm)].filter((match) => match[2] === id).map((match) => `link ${match[1] ?? ''}`),
    ...nat.split('\n').filter((line) => line.includes(`SDRA-SVC-${id}`)),
    ...hierarchies().filter((hierarchy) => fs.existsSync(path.join(hierarchy, `sriov-dra-node-${id}`))),
  ];
}

describe('a real node killed before its teardown', () => {
  it('leaves links, a NAT chain and a cgroup root that the next run removes when it takes the machine lock', async () => {
    const holder = deadPid();
    const id = String(holder % 100_000);
    const chain = `SDRA-SVC-${id}`;
    // What startRealNode makes: the node's address link, the Pods' bridge (and the teardown spec's), the
    // Service DNAT chain hooked into OUTPUT and PREROUTING, and a cgroup root with the kubelet's tree in it.
    // The hooks are appended, not inserted as a node inserts them: behind a live node's chain they are
    // never reached while this waits for that node's lock.
    // All three are bridges: the address link's type (dummy or ifb) depends on the kernel's drivers, and
    // what a run removes goes by name.
    for (const link of [`sdran${id}`, `sdrap${id}`, `sdrat${id}`]) execFileSync('ip', ['link', 'add', link, 'type', 'bridge']);
    execFileSync('iptables', ['-t', 'nat', '-N', chain]);
    execFileSync('iptables', ['-t', 'nat', '-A', chain, '-d', '10.96.0.1/32', '-p', 'tcp', '--dport', '443', '-j', 'DNAT', '--to-destination', '127.0.0.1:1']);
    for (const hook of ['OUTPUT', 'PREROUTING']) execFileSync('iptables', ['-t', 'nat', '-A', hook, '-j', chain]);
    for (const hierarchy of hierarchies()) fs.mkdirSync(path.join(hierarchy, `sriov-dra-node-${id}`, 'kubepods', 'besteffort'), { recursive: true });
    const lock = path.join(os.tmpdir(), 'sriov-dra-real-node.lock');
    const made = leftovers(id);
    expect(made.filter((line) => line.startsWith('link '))).toEqual([`link sdran${id}`, `link sdrap${id}`, `link sdrat${id}`].sort());
    expect(made.filter((line) => line.includes(chain))).toHaveLength(4);

    // The killed run's lock, unless a live run holds the machine now (then it is waited for, as ever).
    if (!fs.existsSync(lock)) {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(holder));
    }
    const lines: string[] = [];
    const unlock = await lockMachine((line) => lines.push(line));
    try {
      expect(leftovers(id)).toEqual([]);
      expect(lines.join('\n')).toContain(`link sdrap${id}`);
    } finally {
      unlock();
    }
  }, 120_000);
});
