// A real Kubernetes node on this machine: containerd v2 with runc and the CRI plugin, and the kubelet,
// registered with a control plane through the Node authorizer. The node's address is on a dummy link of
// its own (the kubelet refuses loopback; no test traffic goes to the machine's own interfaces), its cgroups
// sit below a cgroup root of its own, the `kubernetes` Service's address reaches the API server through a
// DNAT chain of its own, and its images come from local OCI archives. stop() puts the host back as it was.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, type ManagedProcess, freePort, isProcessAlive, nodeBinaries, startProcess, waitFor } from '@sriov-dra/k8s/testing';
import { FIXED_HOST_PATHS, KUBELET_SYSCTLS, readSysctl, sysctlPath } from './host-footprint.ts';
import { type NodeLayout, containerdConfig, kubeletConfig, netnsDir, nodeLayout } from './node-config.ts';

/** The sandbox image containerd pins and the kubelet's Pods run their sandboxes from. */
export const PAUSE_IMAGE = 'localhost/sriov-dra/pause:local';
const RUNC = '/usr/sbin/runc';
const CGROUP_BASE = '/sys/fs/cgroup';

export interface RealNodeOptions {
  readonly controlPlane: ControlPlane;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The node's temporary root; containerd's and the kubelet's state go below it. */
  readonly root: string;
  readonly cni: { readonly binDir: string; readonly confDir: string };
  readonly cdiRoot: string;
  /** The Pods' bridge, created here so that it can route the Service address to loopback. */
  readonly podBridge: string;
  /** OCI archives imported into containerd's k8s.io namespace before the kubelet starts. */
  readonly images: readonly string[];
  readonly log: (line: string) => void;
}

export interface RealNode {
  readonly name: string;
  /** The kubelet's address, on the node's own dummy link. */
  readonly nodeIp: string;
  readonly layout: NodeLayout;
  /** Where containerd mounts Pod network namespaces. */
  readonly netnsDir: string;
  readonly kubeletDir: string;
  /** `ctr` against this node's containerd, in the k8s.io namespace. */
  ctr(args: readonly string[]): string;
  kubeletPid(): number | undefined;
  containerdPid(): number | undefined;
  restartKubelet(): Promise<void>;
  restartContainerd(): Promise<void>;
  /** Tails of the kubelet's and containerd's logs. */
  logTail(): string;
  stop(): Promise<void>;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function tail(file: string, lines = 40): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '';
}

/** A link to hold the node's address: dummy, or ifb where the kernel has no dummy driver (neither carries traffic). */
function addAddressLink(name: string): void {
  try {
    ip('link', 'add', name, 'type', 'dummy');
  } catch {
    ip('link', 'add', name, 'type', 'ifb');
  }
}

/** A /32 from 198.18.0.0/15 (RFC 2544's benchmarking range), one per process: never a real network's. */
function nodeAddress(): string {
  const id = process.pid % 65_000;
  return `198.18.${String(Math.floor(id / 250))}.${String((id % 250) + 2)}`;
}

/** cgroup v1 hierarchies (and the v2 one runc also writes below) as real directories; the symlinked aliases are skipped. */
function cgroupHierarchies(): string[] {
  return fs
    .readdirSync(CGROUP_BASE, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(CGROUP_BASE, entry.name));
}

/** The kubelet needs its cgroup root to exist in every hierarchy; cpuset's must inherit the parent's CPUs and memory nodes. */
function createCgroupRoot(name: string): void {
  for (const hierarchy of cgroupHierarchies()) {
    const dir = path.join(hierarchy, name);
    fs.mkdirSync(dir, { recursive: true });
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const parent = path.join(hierarchy, file);
      if (fs.existsSync(parent) && fs.existsSync(path.join(dir, file))) fs.writeFileSync(path.join(dir, file), fs.readFileSync(parent));
    }
  }
}

/** Removes the cgroup root's whole subtree, deepest first (a cgroup directory goes with rmdir once it has no tasks). */
function removeCgroupTree(name: string): string[] {
  const left: string[] = [];
  for (const hierarchy of cgroupHierarchies()) {
    const top = path.join(hierarchy, name);
    if (!fs.existsSync(top)) continue;
    const dirs: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(dir, entry.name));
      dirs.push(dir);
    };
    walk(top);
    for (const dir of dirs) {
      try {
        fs.rmdirSync(dir);
      } catch {
        left.push(dir);
      }
    }
  }
  return left;
}

type IpTables = 'iptables' | 'ip6tables';
const TABLES = ['filter', 'nat', 'mangle'] as const;

/** Chain names per table, as `<command> <table> <chain>`. */
function iptablesChains(): Set<string> {
  const chains = new Set<string>();
  for (const command of ['iptables', 'ip6tables'] as const) {
    for (const table of TABLES) {
      const result = spawnSync(`${command}-save`, ['-t', table], { encoding: 'utf8' });
      if (result.status !== 0) continue;
      for (const line of result.stdout.split('\n')) {
        const chain = /^:(\S+)/.exec(line)?.[1];
        if (chain !== undefined) chains.add(`${command} ${table} ${chain}`);
      }
    }
  }
  return chains;
}

/** Deletes the chains created since `before` and every rule that jumps to them. */
function removeNewChains(before: ReadonlySet<string>): void {
  const added = [...iptablesChains()].filter((chain) => !before.has(chain));
  for (const entry of added) {
    const [command, table, chain] = entry.split(' ') as [IpTables, string, string];
    const rules = spawnSync(`${command}-save`, ['-t', table], { encoding: 'utf8' }).stdout.split('\n');
    for (const rule of rules) {
      if (!rule.startsWith('-A ') || !rule.includes(` -j ${chain}`) || rule.startsWith(`-A ${chain} `)) continue;
      // iptables-save prints a rule exactly as `-D` takes it back.
      spawnSync('sh', ['-c', `${command} -t ${table} ${rule.replace(/^-A /, '-D ')}`]);
    }
  }
  for (const entry of added) {
    const [command, table, chain] = entry.split(' ') as [IpTables, string, string];
    spawnSync(command, ['-t', table, '-F', chain]);
  }
  for (const entry of added) {
    const [command, table, chain] = entry.split(' ') as [IpTables, string, string];
    spawnSync(command, ['-t', table, '-X', chain]);
  }
}

/** Mounts below `root`, deepest first. */
function mountsBelow(root: string): string[] {
  const targets = execFileSync('findmnt', ['-rn', '-o', 'TARGET'], { encoding: 'utf8' })
    .split('\n')
    // findmnt escapes spaces and the like as \x20; none of our paths has one.
    .filter((target) => target === root || target.startsWith(`${root}/`));
  return targets.sort().reverse();
}

/** Processes whose command line mentions `needle` (a containerd socket: its shims name it). */
function processesMentioning(needle: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      return command.includes(needle) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

async function nodeReady(admin: KubeClient, name: string): Promise<boolean> {
  const node = (await admin.get(resourceTypes.node, { name }).catch(() => undefined)) as
    { status?: { conditions?: readonly { type: string; status: string }[] } } | undefined;
  return node?.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;
}

/**
 * One real node per machine at a time: the kubelet's device-plugin socket and libcni's cache are at fixed
 * host paths, and teardown removes such paths it created. A second run waits for the first; a lock whose
 * holder is gone is taken over.
 */
const MACHINE_LOCK = path.join(os.tmpdir(), 'sriov-dra-real-node.lock');

/**
 * Removes what real nodes killed before their teardown left on the host. With the machine lock held no other
 * node runs, so every link, Service NAT chain and cgroup root named like a node's (`sdran<id>`, the Pods'
 * bridge `sdrap<id>` or the teardown spec's `sdrat<id>`, `SDRA-SVC-<id>`, `sriov-dra-node-<id>`) is a leftover. Left alone, an old Pods' bridge
 * keeps its route to the Pods' subnet and an old chain its DNAT to a dead API server, and the next node's
 * Pods cannot reach the API server.
 */
function removeKilledNodes(log: (line: string) => void): void {
  const removed: string[] = [];
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
  for (const [, link] of links.matchAll(/^\d+: (sdra[npt]\d+)[@:]/gm)) {
    if (link !== undefined && spawnSync('ip', ['link', 'del', link]).status === 0) removed.push(`link ${link}`);
  }
  const nat = spawnSync('iptables-save', ['-t', 'nat'], { encoding: 'utf8' }).stdout;
  for (const [, hook, chain] of nat.matchAll(/^-A (OUTPUT|PREROUTING) -j (SDRA-SVC-\d+)$/gm)) {
    spawnSync('iptables', ['-t', 'nat', '-D', hook ?? '', '-j', chain ?? '']);
  }
  for (const [, chain] of nat.matchAll(/^:(SDRA-SVC-\d+) /gm)) {
    spawnSync('iptables', ['-t', 'nat', '-F', chain ?? '']);
    if (spawnSync('iptables', ['-t', 'nat', '-X', chain ?? '']).status === 0) removed.push(`NAT chain ${chain ?? ''}`);
  }
  const cgroupRoots = new Set(cgroupHierarchies().flatMap((hierarchy) => fs.readdirSync(hierarchy).filter((name) => /^sriov-dra-node-\d+$/.test(name))));
  for (const root of cgroupRoots) {
    const left = removeCgroupTree(root);
    removed.push(left.length === 0 ? `cgroup root ${root}` : `cgroup root ${root} (left: ${left.join(', ')})`);
  }
  if (removed.length > 0) log(`removed what killed real nodes left on the host: ${removed.join('; ')}`);
}

/** Holds of the lock in this process: a test may hold the machine around a node's whole life (to record the host before it). */
let holds = 0;

export async function lockMachine(log: (line: string) => void): Promise<() => void> {
  let reported = false;
  const release = (): void => {
    holds -= 1;
    if (holds === 0) fs.rmSync(MACHINE_LOCK, { recursive: true, force: true });
  };
  if (holds > 0) {
    holds += 1;
    return release;
  }
  for (;;) {
    try {
      fs.mkdirSync(MACHINE_LOCK);
      fs.writeFileSync(path.join(MACHINE_LOCK, 'pid'), String(process.pid));
      holds = 1;
      removeKilledNodes(log);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(
      (() => {
        try {
          return fs.readFileSync(path.join(MACHINE_LOCK, 'pid'), 'utf8');
        } catch {
          return '0';
        }
      })(),
    );
    if (holder > 0 && !isProcessAlive(holder)) {
      fs.rmSync(MACHINE_LOCK, { recursive: true, force: true });
      continue;
    }
    if (!reported) log(`waiting for the real node of process ${String(holder)} to stop (${MACHINE_LOCK})`);
    reported = true;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const binaries = nodeBinaries();
  const { controlPlane, name, root, log } = options;
  const layout = nodeLayout(root, options.cni, options.cdiRoot);
  const id = String(process.pid % 100_000);
  const nodeIp = nodeAddress();
  const link = `sdran${id}`;
  const cgroupRoot = `sriov-dra-node-${id}`;
  const natChain = `SDRA-SVC-${id}`;
  const apiPort = Number(new URL(controlPlane.server).port);
  const logs = { containerd: path.join(root, 'containerd.log'), kubelet: path.join(root, 'kubelet.log') };

  const unlock = await lockMachine(log);
  // What stop() puts back, recorded before anything changes.
  const sysctls = Object.fromEntries(KUBELET_SYSCTLS.map((key) => [key, readSysctl(key)]));
  const chainsBefore = iptablesChains();
  const pathsBefore = new Set(FIXED_HOST_PATHS.filter((file) => fs.existsSync(file)));
  const undo: (() => Promise<void> | void)[] = [unlock];
  let containerd: ManagedProcess | undefined;
  let kubelet: ManagedProcess | undefined;

  const stop = async (): Promise<void> => {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (error) {
        log(`real node teardown: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    undo.length = 0;
  };

  try {
    for (const dir of [
      layout.containerd.root,
      layout.containerd.state,
      layout.kubelet.root,
      layout.kubelet.pki,
      layout.kubelet.podLogs,
      layout.kubelet.volumePlugins,
    ])
      fs.mkdirSync(dir, { recursive: true });

    undo.push(() => {
      for (const [key, value] of Object.entries(sysctls)) fs.writeFileSync(sysctlPath(key), value);
      for (const file of FIXED_HOST_PATHS) if (!pathsBefore.has(file)) fs.rmSync(file, { recursive: true, force: true });
      removeNewChains(chainsBefore);
    });

    spawnSync('ip', ['link', 'del', link]);
    addAddressLink(link);
    undo.push(() => {
      spawnSync('ip', ['link', 'del', link]);
    });
    ip('addr', 'add', `${nodeIp}/32`, 'dev', link);
    ip('link', 'set', link, 'up');

    // The Pods' bridge exists before the bridge plugin adopts it, so that traffic from Pods to the Service
    // address may be routed to the API server on loopback (route_localnet, on this bridge alone).
    spawnSync('ip', ['link', 'del', options.podBridge]);
    ip('link', 'add', options.podBridge, 'type', 'bridge');
    undo.push(() => {
      spawnSync('ip', ['link', 'del', options.podBridge]);
    });
    ip('link', 'set', options.podBridge, 'up');
    fs.writeFileSync(`/proc/sys/net/ipv4/conf/${options.podBridge}/route_localnet`, '1');

    // What kube-proxy would do for the one Service the node's agents need: the `kubernetes` Service's
    // address to the API server, from the host's own processes (hostNetwork Pods) and from Pods.
    execFileSync('iptables', ['-t', 'nat', '-N', natChain]);
    execFileSync('iptables', [
      '-t',
      'nat',
      '-A',
      natChain,
      '-d',
      `${controlPlane.serviceIp}/32`,
      '-p',
      'tcp',
      '--dport',
      '443',
      '-j',
      'DNAT',
      '--to-destination',
      `127.0.0.1:${String(apiPort)}`,
    ]);
    for (const hook of ['OUTPUT', 'PREROUTING']) execFileSync('iptables', ['-t', 'nat', '-I', hook, '-j', natChain]);

    createCgroupRoot(cgroupRoot);
    undo.push(() => {
      const left = removeCgroupTree(cgroupRoot);
      if (left.length > 0) log(`cgroups left: ${left.join(', ')}`);
    });

    // containerd, its shims and the kubelet share a mount namespace of their own whose root is a shared
    // mount: mountPropagation (the chart's HostToContainer mounts of netns directories and the host root)
    // needs it, and a machine whose / is private (this one's) keeps its mount table untouched. Every mount
    // the node makes (volumes, netns, overlay rootfs) goes when the namespace's last process does.
    const holder = startProcess(
      'mount-namespace',
      'unshare',
      ['--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount --make-rshared / && exec sleep 2147483647'],
      path.join(root, 'mount-namespace.log'),
    );
    undo.push(() => holder.stop());
    await waitFor(
      'the node’s mount namespace',
      () =>
        Promise.resolve(
          fs.existsSync(`/proc/${String(holder.child.pid)}/comm`) && fs.readFileSync(`/proc/${String(holder.child.pid)}/comm`, 'utf8').trim() === 'sleep',
        ),
      {
        timeoutMs: 10_000,
        alive: () => holder.child.exitCode === null,
        describe: () => tail(path.join(root, 'mount-namespace.log')),
      },
    );
    const inNamespace = (binary: string, args: readonly string[]): [string, string[]] => [
      'nsenter',
      [`--mount=/proc/${String(holder.child.pid)}/ns/mnt`, '--', binary, ...args],
    ];

    const configFile = path.join(root, 'containerd', 'config.toml');
    fs.writeFileSync(configFile, containerdConfig(layout, { pauseImage: PAUSE_IMAGE, runc: RUNC }));
    const startContainerd = async (): Promise<void> => {
      // containerd finds containerd-shim-runc-v2 on its PATH.
      const path = `PATH=${binaries.binDir}:${process.env['PATH'] ?? ''}`;
      containerd = startProcess(
        'containerd',
        ...inNamespace('env', [path, binaries.containerd, '--config', configFile, '--log-level', 'info']),
        logs.containerd,
      );
      const started = containerd;
      await waitFor('containerd', () => Promise.resolve(spawnSync(binaries.ctr, ['--address', layout.containerd.socket, 'version']).status === 0), {
        timeoutMs: 30_000,
        alive: () => started.child.exitCode === null,
        describe: () => tail(logs.containerd),
      });
    };
    const ctr = (args: readonly string[]): string =>
      execFileSync(binaries.ctr, ['--address', layout.containerd.socket, '--namespace', 'k8s.io', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    undo.push(async () => {
      // Containers first (their shims exit with them), then any shim left, then containerd itself.
      if (containerd !== undefined && containerd.child.exitCode === null) {
        for (const task of ctr(['tasks', 'ls', '-q'])
          .split('\n')
          .filter((line) => line !== '')) {
          spawnSync(binaries.ctr, ['--address', layout.containerd.socket, '-n', 'k8s.io', 'tasks', 'kill', '-s', 'KILL', task]);
          spawnSync(binaries.ctr, ['--address', layout.containerd.socket, '-n', 'k8s.io', 'tasks', 'rm', '-f', task]);
        }
        for (const container of ctr(['containers', 'ls', '-q'])
          .split('\n')
          .filter((line) => line !== ''))
          spawnSync(binaries.ctr, ['--address', layout.containerd.socket, '-n', 'k8s.io', 'containers', 'rm', container]);
      }
      for (const pid of processesMentioning(layout.containerd.socket)) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Gone meanwhile.
        }
      }
      await containerd?.stop();
      for (const target of mountsBelow(root)) spawnSync('umount', ['-l', target]);
    });
    await startContainerd();
    log(`containerd up; importing ${String(options.images.length)} image archive(s)`);
    for (const archive of options.images) ctr(['images', 'import', archive]);

    const kubeletPort = await freePort();
    const healthzPort = await freePort();
    const credentials = controlPlane.kubeletCredentials(name, nodeIp);
    const kubeletConfigFile = path.join(root, 'kubelet', 'config.json');
    fs.writeFileSync(
      kubeletConfigFile,
      kubeletConfig(layout, {
        nodeIp,
        port: kubeletPort,
        healthzPort,
        cgroupRoot: `/${cgroupRoot}`,
        clientCaFile: controlPlane.caCert,
        serving: credentials.serving,
      }),
    );
    const kubeletArgs = [
      `--config=${kubeletConfigFile}`,
      `--kubeconfig=${credentials.kubeconfig}`,
      `--root-dir=${layout.kubelet.root}`,
      `--cert-dir=${layout.kubelet.pki}`,
      `--hostname-override=${name}`,
      `--node-ip=${nodeIp}`,
      `--node-labels=${Object.entries(options.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(',')}`,
      '--v=2',
    ];
    const startKubelet = async (): Promise<void> => {
      kubelet = startProcess('kubelet', ...inNamespace(binaries.kubelet, kubeletArgs), logs.kubelet);
      const started = kubelet;
      await waitFor(
        'the kubelet to answer /healthz',
        async () => (await fetch(`http://127.0.0.1:${String(healthzPort)}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok,
        { timeoutMs: 60_000, alive: () => started.child.exitCode === null, describe: () => tail(logs.kubelet) },
      );
    };
    undo.push(async () => {
      await kubelet?.stop();
    });
    await startKubelet();
    await waitFor(`node ${name} to be Ready`, () => nodeReady(controlPlane.adminClient, name), {
      timeoutMs: 90_000,
      alive: () => kubelet?.child.exitCode === null,
      describe: () => tail(logs.kubelet),
    });
    undo.push(async () => {
      await controlPlane.adminClient.delete(resourceTypes.node, { name }).catch(() => undefined);
    });
    log(`node ${name} Ready at ${nodeIp}`);

    return {
      name,
      nodeIp,
      layout,
      netnsDir: netnsDir(layout),
      kubeletDir: layout.kubelet.root,
      ctr,
      kubeletPid: () => kubelet?.child.pid,
      containerdPid: () => containerd?.child.pid,
      async restartKubelet() {
        await kubelet?.stop();
        await startKubelet();
      },
      async restartContainerd() {
        await containerd?.stop();
        await startContainerd();
      },
      logTail: () => `kubelet:\n${tail(logs.kubelet)}\ncontainerd:\n${tail(logs.containerd)}`,
      stop,
    };
  } catch (error) {
    log(`the real node did not start: ${error instanceof Error ? error.message : String(error)}\n${tail(logs.kubelet)}\n${tail(logs.containerd)}`);
    await stop();
    throw error;
  }
}
