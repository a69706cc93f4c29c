// What a real node run may change on the machine outside its own temporary tree, recorded before and
// compared after: the kubelet writes host sysctls and iptables chains, runc and the kubelet create cgroups,
// mounts and links, and containerd and the kubelet create directories at fixed host paths. Teardown must
// put every one back; a test compares the two footprints.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Non-namespaced sysctls the kubelet sets at start (its "protect kernel defaults" set). */
export const KUBELET_SYSCTLS = [
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
] as const;

/** Host paths the kubelet, containerd, runc and libcni use whatever their configured roots are. */
export const FIXED_HOST_PATHS = ['/var/lib/kubelet', '/run/containerd', '/var/lib/cni', '/run/containers', '/run/runc', '/var/lib/containers'] as const;

/**
 * Every link a real node creates is named with this prefix (its address link, the Pods' bridge, a test's
 * bridge); Pods' veths go with their bridge. Links and mounts are compared only where a node makes them:
 * other suites running beside it on the same machine create and remove their own.
 */
export const NODE_LINK_PREFIX = 'sdra';

export interface HostFootprint {
  readonly sysctls: Readonly<Record<string, string>>;
  /** `iptables-save`/`ip6tables-save` lines, chains and rules, without counters. */
  readonly iptables: readonly string[];
  /** Links named with NODE_LINK_PREFIX. */
  readonly links: readonly string[];
  /** Mounts at or below a fixed host path or the node's tree. */
  readonly mounts: readonly string[];
  /** Every cgroup v1/v2 directory at depth one (the roots a kubelet or runc creates). */
  readonly cgroups: readonly string[];
  readonly paths: readonly string[];
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

export function sysctlPath(key: string): string {
  return `/proc/sys/${key.replaceAll('.', '/')}`;
}

export function readSysctl(key: string): string {
  return fs.readFileSync(sysctlPath(key), 'utf8').trim();
}

const BUILT_IN_ACCEPT = /^:(PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) ACCEPT$/;

function iptablesLines(): string[] {
  return ['iptables-save', 'ip6tables-save'].flatMap((command) => {
    let text: string;
    try {
      text = run(command, []);
    } catch {
      return [];
    }
    // Counters and timestamps change by themselves, and a table the kernel instantiated on first use with
    // its built-in chains empty and accepting behaves as no table: only rules, user chains and a changed
    // policy are state.
    return text
      .split('\n')
      .map((line) => line.replace(/ \[\d+:\d+\]$/, ''))
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('*') && line !== 'COMMIT' && !BUILT_IN_ACCEPT.test(line))
      .map((line) => `${command} ${line}`);
  });
}

function cgroupRoots(): string[] {
  const base = '/sys/fs/cgroup';
  if (!fs.existsSync(base)) return [];
  return fs.readdirSync(base, { withFileTypes: true }).flatMap((hierarchy) => {
    const dir = `${base}/${hierarchy.name}`;
    if (!hierarchy.isDirectory()) return [];
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}`);
  });
}

/** The host as a real node may change it; `nodeRoot` is the node's temporary tree, whose mounts count too. */
export function hostFootprint(nodeRoot?: string): HostFootprint {
  const watched = [...FIXED_HOST_PATHS, ...(nodeRoot === undefined ? [] : [nodeRoot])];
  return {
    sysctls: Object.fromEntries(KUBELET_SYSCTLS.map((key) => [key, readSysctl(key)])),
    iptables: iptablesLines(),
    links: run('ip', ['-o', 'link', 'show'])
      .split('\n')
      .flatMap((line) => {
        const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
        return name !== undefined && name.startsWith(NODE_LINK_PREFIX) ? [name] : [];
      }),
    mounts: run('findmnt', ['-rn', '-o', 'TARGET'])
      .split('\n')
      .filter((target) => watched.some((dir) => target === dir || target.startsWith(`${dir}/`))),
    cgroups: cgroupRoots(),
    paths: FIXED_HOST_PATHS.filter((path) => fs.existsSync(path)),
  };
}

/** Each difference as `+ <kind> <item>` (appeared) or `- <kind> <item>` (vanished) or `~ sysctl k: a -> b`. */
export function footprintChanges(before: HostFootprint, after: HostFootprint): string[] {
  const changes: string[] = [];
  for (const [key, value] of Object.entries(before.sysctls)) {
    const now = after.sysctls[key];
    if (now !== value) changes.push(`~ sysctl ${key}: ${value} -> ${String(now)}`);
  }
  const kinds = ['iptables', 'links', 'mounts', 'cgroups', 'paths'] as const;
  for (const kind of kinds) {
    const was = new Set(before[kind]);
    const is = new Set(after[kind]);
    for (const item of is) if (!was.has(item)) changes.push(`+ ${kind} ${item}`);
    for (const item of was) if (!is.has(item)) changes.push(`- ${kind} ${item}`);
  }
  return changes;
}
