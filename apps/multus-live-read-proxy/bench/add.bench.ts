// CNI ADD through the upstream multus-shim v4.2.3 on one node, three daemons side by side on one loopback
// control plane with an audit log: upstream multus-daemon v4.2.3 (its own process, reading its informers),
// this daemon with liveNetworkConfigOnAdd true and this daemon with it false (informer mode), both started
// in the bench process by startDaemon. Every ADD is of a fresh Pod with the primary network (bridge +
// host-local from confDir) and two managed shadows (dra0, dra1: two VFs of one claim), created and bound
// before the ADD and left to reach every informer, so nothing is stale: steady state. A DEL through the
// shim follows each ADD, untimed, so leases and caches do not pile up. Rounds interleave the daemons, in an
// order that rotates, so background load falls on all three alike.
//
// The sriov delegate is a /bin/sh stand-in, fast and identical for all three. The delegates' own time is the
// same three configurations (primary, dra0, dra1) run in a fresh network namespace right after each daemon's
// ADD, twice: through our addNetwork, and through libcni in Go as upstream's daemon runs them
// (tools/multus-peer/delegate-runner). A daemon's overhead is its ADD time minus that: minus addNetwork's for
// ours; for upstream, minus libcni's (its own machinery, so Go's faster exec is not charged to it as overhead)
// and, as a second figure, minus addNetwork's. Requests are
// counted at the API server from its audit log, by the daemon's user, between the shim's start and its
// answer; its informers' LIST and WATCH are not per ADD and are left out. Our daemons' histograms also give
// each ADD's time inside the daemon and its delegates' share of it, so their overhead is reported a second
// way, free of the shim and of the direct run's noise; the shim's VERSION (answered without any daemon) is
// the same-run cost of exec'ing the shim.
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type AuditEvent, type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { addNetwork, delNetwork } from '../src/cni/invoke.ts';
import type { RuntimeConf } from '../src/cni/runtime-conf.ts';
import type { Daemon } from '../src/daemon.ts';
import { NODE, type NodeFixture, bindShadows, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../test/pipeline/node-fixture.ts';
import { shimConfig, shimEnv as fixtureShimEnv, startFixtureDaemon, writeFixtureDaemonConfig } from '../test/daemon/daemon-fixture.ts';
import { runShim } from '../test/server/multus-shim.ts';
import { GoDelegateRunner } from '../test/upstream/go-delegate-runner.ts';
import { LAUNCH_ENV, LAUNCH_FLAGS, type LaunchedDaemon, launchDaemon } from './launch-daemon.ts';
import { UPSTREAM_USER, type UpstreamDaemon, grantUpstreamMultus, startUpstreamDaemon, upstreamNetnsPath } from '../test/upstream/upstream-daemon.ts';

const NS = 'bench';
const ROUNDS = 40;
/** Rounds before the measured ones: the first ADD creates the bridge, and JIT compilation settles. */
const WARMUP_ROUNDS = 3;
/** Between binding a round's Pods and ADDing them; a loopback watch delivers in milliseconds. */
const SETTLE_MS = 300;
const PCI_ADDRESSES = ['0000:03:00.1', '0000:03:00.2'] as const;
const MANAGED_INTERFACES = ['dra0', 'dra1'] as const;
/** Target of the issue: this daemon's live-mode overhead at most 1.5× upstream's informer-mode overhead. */
const TARGET_OVERHEAD_RATIO = 1.5;

/**
 * sriov-cni's place in the chain at the cost of a shell: appends what it was asked to a log and answers ADD
 * with the interface it was given, so every daemon's delegate time is small and the same.
 */
const FAST_SRIOV = `#!/bin/sh
log="$(dirname "$0")/sriov-calls.log"
printf '%s %s %s\\n' "$CNI_COMMAND" "$CNI_IFNAME" "$CNI_CONTAINERID" >> "$log"
cat >> "$log"
printf '\\n' >> "$log"
if [ "$CNI_COMMAND" = ADD ]; then
  printf '{"cniVersion":"1.0.0","interfaces":[{"name":"%s","sandbox":"%s"}],"ips":[{"address":"192.0.2.1%s/24","interface":0}]}' "$CNI_IFNAME" "$CNI_NETNS" "\${CNI_IFNAME#dra}"
fi
`;

type SideName = 'upstream' | 'live' | 'informer' | 'launched';
const SIDES: readonly SideName[] = ['upstream', 'live', 'informer', 'launched'];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Side {
  readonly name: SideName;
  /** The API user the daemon authenticates as. */
  readonly user: string;
  readonly socketDir: string;
  /** A sandbox's path as this daemon sees it. */
  netnsPath(sandbox: { name: string; path: string }): string;
  /** This daemon's metrics, when it runs in the bench process. */
  readonly daemon?: Daemon;
}

/** The requests first written to the audit log while a window is open, each with its last stage. */
class AuditTail {
  readonly #path: string;
  readonly #seen = new Set<string>();
  #offset = 0;
  #window: Map<string, AuditEvent> | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  async #read(): Promise<void> {
    const file = await open(this.#path, 'r');
    try {
      const { size } = await file.stat();
      if (size <= this.#offset) return;
      const buffer = Buffer.alloc(size - this.#offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, this.#offset);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      // A line still being written has no newline yet; it is read whole next time.
      const complete = text.slice(0, text.lastIndexOf('\n') + 1);
      this.#offset += Buffer.byteLength(complete);
      for (const line of complete.split('\n')) {
        if (line === '') continue;
        const event = JSON.parse(line) as AuditEvent;
        if (this.#window !== undefined && (this.#window.has(event.auditID) || !this.#seen.has(event.auditID))) this.#window.set(event.auditID, event);
        this.#seen.add(event.auditID);
      }
    } finally {
      await file.close();
    }
  }

  /** Opens a window once everything written so far is read. */
  async open(): Promise<void> {
    await this.#read();
    this.#window = new Map();
  }

  /** Closes the window once each of its requests is answered (a watch: once its response started). */
  async close(): Promise<AuditEvent[]> {
    const window = this.#window ?? new Map<string, AuditEvent>();
    await waitFor(
      'the window’s requests answered',
      async () => {
        await this.#read();
        return [...window.values()].every((event) => event.stage !== 'RequestReceived');
      },
      { timeoutMs: 30_000 },
    );
    this.#window = undefined;
    return [...window.values()];
  }
}

interface Context {
  readonly cp: ControlPlane;
  readonly node: NodeFixture;
  /** Where the fast sriov stand-in lives (in place of the fixture’s recording one). */
  readonly standInDir: string;
  readonly binDirs: readonly string[];
  readonly directCacheDir: string;
  /** Runs the direct delegates through libcni as upstream does, for upstream's own delegate time. */
  readonly goRunner: GoDelegateRunner;
  readonly audit: AuditTail;
  readonly sides: readonly Side[];
  readonly upstream: UpstreamDaemon;
  readonly ours: readonly Daemon[];
  /** Ours launched as its own process (the `launched` side). */
  readonly launchedDaemon: LaunchedDaemon;
  /** The measured run, shared by every benchmark of this module. */
  run(): Promise<RunFigures>;
}

interface SideSamples {
  readonly addMs: number[];
  /** The ADD's delegates run directly by our addNetwork (this daemon's exec machinery when it is ours). */
  readonly delegatesMs: number[];
  /** The same delegates run directly by libcni in Go (upstream's exec machinery). */
  readonly goDelegatesMs: number[];
  /** Each measured ADD's requests, with its Pod and shadows. */
  readonly requests: { readonly pod: string; readonly shadows: readonly string[]; readonly events: readonly AuditEvent[] }[];
  stale: number;
  /** Our daemons' own account of each measured ADD, from their histograms, in milliseconds. */
  readonly inDaemon: { readonly requestMs: number[]; readonly delegatesMs: number[]; readonly liveReadsMs: number[] };
}

interface RunFigures {
  readonly samples: ReadonlyMap<SideName, SideSamples>;
  /** The shim's VERSION, answered without the daemon: what exec'ing the shim alone costs. */
  readonly shimExecMs: readonly number[];
  readonly loadStart: readonly number[];
  readonly loadEnd: readonly number[];
}

async function startOurs(node: NodeFixture, cp: ControlPlane, name: 'live' | 'informer'): Promise<Side> {
  const user = `multus-${name}`;
  const kubeconfig = cp.kubeconfigFor(user, { groups: ['system:masters'] });
  const { daemon, socketDir } = await startFixtureDaemon(node, { dir: join(node.root, name), kubeconfig, liveNetworkConfigOnAdd: name === 'live' });
  await waitFor(`${name} daemon ready`, async () => (await fetch(`http://127.0.0.1:${String(daemon.metricsPort)}/readyz`)).ok, { timeoutMs: 60_000 });
  return { name, user, socketDir, netnsPath: (sandbox) => sandbox.path, daemon };
}

/**
 * Ours in live mode as a DaemonSet runs it: dist/main.js in a process of its own, launched as documented, so
 * the cost of the interpreter-only launch shows next to the in-process daemons (which run with V8's compilers).
 */
async function startLaunched(node: NodeFixture, cp: ControlPlane): Promise<{ side: Side; daemon: LaunchedDaemon }> {
  const user = 'multus-launched';
  const { config, socketDir } = await writeFixtureDaemonConfig(node, { dir: join(node.root, 'launched'), liveNetworkConfigOnAdd: true });
  const kubeconfig = cp.kubeconfigFor(user, { groups: ['system:masters'] });
  const daemon = await launchDaemon({ config, kubeconfig, nodeName: NODE, flags: LAUNCH_FLAGS, env: LAUNCH_ENV });
  return { side: { name: 'launched', user, socketDir, netnsPath: (sandbox) => sandbox.path }, daemon };
}

export async function setup(): Promise<Context> {
  // The launched daemon runs the built JavaScript of this checkout (nx rebuilds only what changed).
  execFileSync(process.execPath, [join(ROOT, 'node_modules/nx/dist/bin/nx.js'), 'run', 'multus-live-read-proxy:build', '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cp = await startControlPlane({ audit: true });
  if (cp.auditLog === undefined) throw new Error('the control plane runs without an audit log');
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  const node = await createNodeFixture();
  const standInDir = await mkdtemp(join(tmpdir(), 'mlrp-bench-sriov-'));
  await writeFile(join(standInDir, 'sriov'), FAST_SRIOV);
  await chmod(join(standInDir, 'sriov'), 0o755);
  const binDirs = [node.binDirs[0] ?? '', standInDir];
  const token = await grantUpstreamMultus(cp.adminClient);
  const upstream = await startUpstreamDaemon({
    dir: join(node.root, 'upstream'),
    node: { ...node, binDirs },
    nodeName: NODE,
    apiServer: cp.server,
    caCert: cp.caCert,
    token,
  });
  const ours: Daemon[] = [];
  const sides: Side[] = [{ name: 'upstream', user: UPSTREAM_USER, socketDir: upstream.socketDir, netnsPath: (sandbox) => upstreamNetnsPath(sandbox.name) }];
  for (const name of ['live', 'informer'] as const) {
    const side = await startOurs(node, cp, name);
    if (side.daemon !== undefined) ours.push(side.daemon);
    sides.push(side);
  }
  const launched = await startLaunched(node, cp);
  sides.push(launched.side);
  const context: Omit<Context, 'run'> = {
    launchedDaemon: launched.daemon,
    cp,
    node,
    standInDir,
    binDirs,
    directCacheDir: join(node.root, 'direct-cni-cache'),
    goRunner: GoDelegateRunner.start(),
    audit: new AuditTail(cp.auditLog.path),
    sides,
    upstream,
    ours,
  };
  let running: Promise<RunFigures> | undefined;
  return {
    ...context,
    run: () => (running ??= measure(context)),
  };
}

export async function teardown({ cp, node, standInDir, upstream, ours, launchedDaemon, goRunner }: Context): Promise<void> {
  goRunner.stop();
  await launchedDaemon.stop();
  await upstream.stop();
  for (const daemon of ours) await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
  await rm(standInDir, { recursive: true, force: true });
}

function shimEnv(command: 'ADD' | 'DEL', containerID: string, netns: string, pod: KubeObject, node: NodeFixture, standInDir: string): Record<string, string> {
  // The fast stand-in's directory is the request's CNI_PATH: every daemon searches its binDir, then that.
  return fixtureShimEnv({ ...node, binDirs: [node.binDirs[0] ?? '', standInDir] }, command, containerID, netns, {
    namespace: NS,
    name: pod.metadata.name,
    uid: pod.metadata.uid,
  });
}

/** Seconds our daemon has spent so far answering ADDs, in their delegates and in their live reads (its histograms). */
async function secondsInDaemon(daemon: Daemon | undefined): Promise<{ request: number; delegates: number; liveReads: number }> {
  if (daemon === undefined) return { request: Number.NaN, delegates: Number.NaN, liveReads: Number.NaN };
  const { metrics } = daemon;
  const sum = async (histogram: typeof metrics.requestDuration, onlyAdd: boolean): Promise<number> =>
    (await histogram.get()).values
      .filter((value) => value.metricName?.endsWith('_sum') === true && (!onlyAdd || value.labels['command'] === 'ADD'))
      .reduce((total, value) => total + value.value, 0);
  return {
    request: await sum(metrics.requestDuration, true),
    delegates: await sum(metrics.delegateDuration, true),
    // Only ADD reads live.
    liveReads: await sum(metrics.liveReadDuration, false),
  };
}

/**
 * The primary network, dra0 and dra1 run directly in a fresh network namespace, ADD timed and DEL after: once
 * by our addNetwork, once by libcni in Go, in an order that alternates with `round`.
 */
async function runDelegatesDirectly(
  context: Omit<Context, 'run'>,
  pod: KubeObject,
  shadows: readonly string[],
  containerID: string,
  round: number,
): Promise<{ nodeMs: number; goMs: number }> {
  const primary = await readFile(join(context.node.confDir, '10-primary.conflist'));
  const managed = [];
  for (const name of shadows) {
    const nad = await context.cp.adminClient.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, { namespace: NS, name });
    managed.push(Buffer.from(nad.spec.config, 'utf8'));
  }
  const delegates: [Uint8Array, string][] = [
    [primary, 'eth0'],
    ...managed.map((bytes, index): [Uint8Array, string] => [bytes, MANAGED_INTERFACES[index] ?? '']),
  ];
  const args = (id: string): [string, string][] => [
    ['IgnoreUnknown', '1'],
    ['K8S_POD_NAMESPACE', NS],
    ['K8S_POD_NAME', pod.metadata.name],
    ['K8S_POD_INFRA_CONTAINER_ID', id],
    ['K8S_POD_UID', pod.metadata.uid],
  ];
  const runNode = async (): Promise<number> => {
    const sandbox = createSandbox();
    const id = `${containerID}-node`;
    const runtimeConf = (ifName: string): RuntimeConf => ({
      containerID: id,
      netns: sandbox.path,
      ifName,
      args: args(id),
      capabilityArgs: {},
      cacheDir: context.directCacheDir,
    });
    const options = { binDirs: context.binDirs, timeoutMs: 60_000 };
    try {
      const started = performance.now();
      for (const [bytes, ifName] of delegates) await addNetwork(bytes, runtimeConf(ifName), options);
      const elapsed = performance.now() - started;
      for (const [bytes, ifName] of delegates.toReversed()) await delNetwork(bytes, runtimeConf(ifName), options);
      return elapsed;
    } finally {
      sandbox.remove();
    }
  };
  const runGo = async (): Promise<number> => {
    const sandbox = createSandbox();
    const id = `${containerID}-go`;
    const call = {
      containerID: id,
      netns: sandbox.path,
      args: args(id),
      binDirs: context.binDirs,
      cacheDir: context.directCacheDir,
      delegates: delegates.map(([bytes, ifName]) => ({ config: Buffer.from(bytes).toString('utf8'), ifName })),
    };
    try {
      const elapsed = await context.goRunner.run({ command: 'ADD', ...call });
      await context.goRunner.run({ command: 'DEL', ...call });
      return elapsed;
    } finally {
      sandbox.remove();
    }
  };
  if (round % 2 === 0) {
    const nodeMs = await runNode();
    return { nodeMs, goMs: await runGo() };
  }
  const goMs = await runGo();
  return { nodeMs: await runNode(), goMs };
}

/** The managed delegates the stand-in was asked to ADD for `containerID`. */
async function managedAddsFor(standInDir: string, containerID: string): Promise<string[]> {
  const log = await readFile(join(standInDir, 'sriov-calls.log'), 'utf8').catch(() => '');
  return log
    .split('\n')
    .flatMap((line) => {
      const [command, ifName, id] = line.split(' ');
      return command === 'ADD' && id === containerID && ifName !== undefined ? [ifName] : [];
    })
    .sort();
}

async function measure(context: Omit<Context, 'run'>): Promise<RunFigures> {
  const { cp, sides, audit, standInDir, node } = context;
  const samples = new Map<SideName, SideSamples>(
    SIDES.map((name) => [
      name,
      { addMs: [], delegatesMs: [], goDelegatesMs: [], requests: [], stale: 0, inDaemon: { requestMs: [], delegatesMs: [], liveReadsMs: [] } },
    ]),
  );
  const shimExecMs: number[] = [];
  const loadStart = loadavg();
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round += 1) {
    const measured = round >= WARMUP_ROUNDS;
    const order = sides.map((_unused, index) => sides[(index + round) % sides.length]).filter((side) => side !== undefined);
    const pods = new Map<SideName, { pod: KubeObject; shadows: string[] }>();
    for (const side of order) {
      const pod = await createPod(cp.adminClient, NS, `${side.name}-${String(round)}`);
      const shadows = await bindShadows(cp.adminClient, pod, context.node.hostLocalDir, PCI_ADDRESSES);
      pods.set(side.name, { pod, shadows });
    }
    await delay(SETTLE_MS);
    const versionStarted = performance.now();
    const version = await runShim({ CNI_COMMAND: 'VERSION', PATH: process.env['PATH'] ?? '' }, '{"cniVersion":"1.0.0"}');
    if (version.code !== 0) throw new Error(`multus-shim VERSION failed: ${version.stdout}${version.stderr}`);
    if (measured) shimExecMs.push(performance.now() - versionStarted);
    for (const side of order) {
      const bound = pods.get(side.name);
      const figures = samples.get(side.name);
      if (bound === undefined || figures === undefined) throw new Error(`no Pod for ${side.name}`);
      const { pod, shadows } = bound;
      const containerID = `c-${side.name}-${String(round)}`;
      const sandbox = createSandbox();
      try {
        await writeFile(join(standInDir, 'sriov-calls.log'), '');
        const inDaemonBefore = await secondsInDaemon(side.daemon);
        await audit.open();
        const started = performance.now();
        const add = await runShim(shimEnv('ADD', containerID, side.netnsPath(sandbox), pod, node, standInDir), shimConfig(side.socketDir));
        const addMs = performance.now() - started;
        const requests = (await audit.close()).filter((event) => event.user.username === side.user && event.verb !== 'list' && event.verb !== 'watch');
        const inDaemonAfter = await secondsInDaemon(side.daemon);
        // Checked outside the timing: a figure for an ADD that failed or ran fewer delegates would be meaningless.
        if (add.code !== 0 || add.stderr !== '') throw new Error(`${side.name} ADD of ${pod.metadata.name} failed: ${add.stdout}${add.stderr}`);
        const managedRan = (await managedAddsFor(standInDir, containerID)).join(',') === MANAGED_INTERFACES.join(',');
        const del = await runShim(shimEnv('DEL', containerID, side.netnsPath(sandbox), pod, node, standInDir), shimConfig(side.socketDir));
        if (del.code !== 0 || del.stderr !== '') throw new Error(`${side.name} DEL of ${pod.metadata.name} failed: ${del.stdout}${del.stderr}`);
        const direct = await runDelegatesDirectly(context, pod, shadows, `direct-${containerID}`, round);
        if (!measured) continue;
        // An informer that had not caught up would have run the primary network only: not this workload.
        if (!managedRan) {
          figures.stale += 1;
          continue;
        }
        figures.addMs.push(addMs);
        figures.delegatesMs.push(direct.nodeMs);
        figures.goDelegatesMs.push(direct.goMs);
        figures.requests.push({ pod: pod.metadata.name, shadows, events: requests });
        if (side.daemon !== undefined) {
          figures.inDaemon.requestMs.push((inDaemonAfter.request - inDaemonBefore.request) * 1000);
          figures.inDaemon.delegatesMs.push((inDaemonAfter.delegates - inDaemonBefore.delegates) * 1000);
          figures.inDaemon.liveReadsMs.push((inDaemonAfter.liveReads - inDaemonBefore.liveReads) * 1000);
        }
      } finally {
        sandbox.remove();
      }
    }
    // The Pods go, so every informer holds the same few objects throughout.
    for (const { pod, shadows } of pods.values()) {
      await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name: pod.metadata.name }, { gracePeriodSeconds: 0 });
      for (const name of shadows) await cp.adminClient.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name });
    }
  }
  return { samples, shimExecMs, loadStart, loadEnd: loadavg() };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

type RequestKind = 'podGet' | 'nadGet' | 'nadGetNotFound' | 'statusWrite' | 'eventWrite' | 'other';

function kindOf(event: AuditEvent): RequestKind {
  const resource = event.objectRef?.resource;
  const subresource = event.objectRef?.subresource;
  if (resource === 'pods' && subresource === undefined && event.verb === 'get') return 'podGet';
  if (resource === 'pods' && subresource === 'status' && (event.verb === 'patch' || event.verb === 'update')) return 'statusWrite';
  if (resource === 'network-attachment-definitions' && event.verb === 'get') return event.responseStatus?.code === 404 ? 'nadGetNotFound' : 'nadGet';
  if (resource === 'events') return 'eventWrite';
  return 'other';
}

/** Live mode's target per ADD: the Pod, the cluster network's NAD (absent: confDir), each shadow, network-status. */
function isExactlyTarget(events: readonly AuditEvent[], pod: string, shadows: readonly string[]): boolean {
  const line = (event: AuditEvent): string =>
    `${event.verb} ${event.objectRef?.resource ?? ''}${event.objectRef?.subresource === undefined ? '' : `/${event.objectRef.subresource}`} ${event.objectRef?.namespace ?? ''}/${event.objectRef?.name ?? ''} ${String(event.responseStatus?.code ?? '')}`;
  const expected = [
    `get pods ${NS}/${pod} 200`,
    'get network-attachment-definitions kube-system/primary 404',
    ...shadows.map((name) => `get network-attachment-definitions ${NS}/${name} 200`),
    `patch pods/status ${NS}/${pod} 200`,
  ].sort();
  return JSON.stringify(events.map(line).sort()) === JSON.stringify(expected);
}

/** Prefix of a daemon's figures. */
const FIGURE_PREFIX: Record<SideName, string> = { upstream: 'upstream', live: 'oursLive', informer: 'oursInformer', launched: 'oursLaunchedLive' };

export const benchmarks = [
  {
    name:
      `CNI ADD through the upstream multus-shim, Pod with the primary network + 2 managed shadows (fast sriov stand-in), ${String(ROUNDS)} ADDs per daemon ` +
      `interleaved after ${String(WARMUP_ROUNDS)} warm-up, DEL after each: upstream multus-daemon v4.2.3 (informers, own process) vs this daemon ` +
      `live and informer mode (startDaemon in the bench process) and live mode launched as documented (dist/main.js, its own process, V8 interpreter only); overhead = ADD − the same delegates run directly (by addNetwork; for upstream also by libcni in Go, its own machinery)`,
    once: async (context: Context) => {
      const { samples, shimExecMs, loadStart, loadEnd } = await context.run();
      const figures: Record<string, number> = {};
      const overhead = new Map<SideName, { p50: number; pairedP50: number; ownP50: number; ownPairedP50: number; goP50: number }>();
      for (const name of SIDES) {
        const side = samples.get(name);
        if (side === undefined) continue;
        const key = FIGURE_PREFIX[name];
        const addP50 = percentile(side.addMs, 50);
        const addP99 = percentile(side.addMs, 99);
        const delegatesP50 = percentile(side.delegatesMs, 50);
        const delegatesP99 = percentile(side.delegatesMs, 99);
        figures[`${key}Adds`] = side.addMs.length;
        figures[`${key}StaleAdds`] = side.stale;
        figures[`${key}AddP50Ms`] = addP50;
        figures[`${key}AddP99Ms`] = addP99;
        figures[`${key}DelegatesP50Ms`] = delegatesP50;
        figures[`${key}DelegatesP99Ms`] = delegatesP99;
        figures[`${key}OverheadP50Ms`] = addP50 - delegatesP50;
        figures[`${key}OverheadP99Ms`] = addP99 - delegatesP99;
        // Each ADD less the direct run right after it: background load that drifts between runs cancels out.
        const paired = side.addMs.map((addMs, index) => addMs - (side.delegatesMs[index] ?? Number.NaN));
        figures[`${key}PairedOverheadP50Ms`] = percentile(paired, 50);
        figures[`${key}PairedOverheadP99Ms`] = percentile(paired, 99);
        // The same delegates under libcni in Go, upstream's own exec machinery.
        const goDelegatesP50 = percentile(side.goDelegatesMs, 50);
        figures[`${key}GoDelegatesP50Ms`] = goDelegatesP50;
        figures[`${key}GoDelegatesP99Ms`] = percentile(side.goDelegatesMs, 99);
        const pairedGo = side.addMs.map((addMs, index) => addMs - (side.goDelegatesMs[index] ?? Number.NaN));
        if (name === 'upstream') {
          figures[`${key}OverheadOwnDelegatesP50Ms`] = addP50 - goDelegatesP50;
          figures[`${key}OverheadOwnDelegatesP99Ms`] = addP99 - percentile(side.goDelegatesMs, 99);
          figures[`${key}PairedOverheadOwnDelegatesP50Ms`] = percentile(pairedGo, 50);
        }
        // Each daemon less the delegate time of its own machinery: libcni in Go for upstream, addNetwork for ours.
        overhead.set(name, {
          p50: addP50 - delegatesP50,
          pairedP50: percentile(paired, 50),
          ownP50: name === 'upstream' ? addP50 - goDelegatesP50 : addP50 - delegatesP50,
          ownPairedP50: percentile(name === 'upstream' ? pairedGo : paired, 50),
          goP50: addP50 - goDelegatesP50,
        });
        // Our daemons' own account of each ADD: from the socket to the answer less its own delegates' time (the
        // overhead without the shim's exec and socket round trip, and without a second run's noise), and its live GETs.
        if (side.inDaemon.requestMs.length > 0) {
          const { requestMs, delegatesMs, liveReadsMs } = side.inDaemon;
          const exclusive = requestMs.map((ms, index) => ms - (delegatesMs[index] ?? Number.NaN));
          figures[`${key}InDaemonP50Ms`] = percentile(requestMs, 50);
          figures[`${key}InDaemonDelegatesP50Ms`] = percentile(delegatesMs, 50);
          figures[`${key}InDaemonOverheadP50Ms`] = percentile(exclusive, 50);
          figures[`${key}InDaemonOverheadP99Ms`] = percentile(exclusive, 99);
          figures[`${key}LiveReadsP50Ms`] = percentile(liveReadsMs, 50);
          // The shim's exec, its HTTP round trip over the unix socket and the answer's way back.
          figures[`${key}ShimAndSocketP50Ms`] = percentile(
            side.addMs.map((ms, index) => ms - (requestMs[index] ?? Number.NaN)),
            50,
          );
        }
      }
      const upstream = overhead.get('upstream');
      const live = overhead.get('live');
      const informer = overhead.get('informer');
      if (upstream !== undefined && live !== undefined && informer !== undefined) {
        figures['oursLiveOverheadP50VsUpstream'] = live.p50 / upstream.p50;
        figures['oursInformerOverheadP50VsUpstream'] = informer.p50 / upstream.p50;
        figures['oursLivePairedOverheadP50VsUpstream'] = live.pairedP50 / upstream.pairedP50;
        figures['oursInformerPairedOverheadP50VsUpstream'] = informer.pairedP50 / upstream.pairedP50;
        figures['oursLiveOverheadP50VsUpstreamOwnDelegates'] = live.ownP50 / upstream.ownP50;
        // Both less the Go delegate time: our slower process spawning then counts as our overhead.
        figures['oursLiveOverheadP50VsUpstreamGoDelegates'] = live.goP50 / upstream.ownP50;
        figures['oursLivePairedOverheadP50VsUpstreamOwnDelegates'] = live.ownPairedP50 / upstream.ownPairedP50;
        figures['oursInformerOverheadP50VsUpstreamOwnDelegates'] = informer.ownP50 / upstream.ownP50;
        figures['targetOverheadRatio'] = TARGET_OVERHEAD_RATIO;
      }
      const launched = overhead.get('launched');
      if (upstream !== undefined && launched !== undefined) {
        figures['oursLaunchedLiveOverheadP50VsUpstream'] = launched.p50 / upstream.p50;
        figures['oursLaunchedLivePairedOverheadP50VsUpstream'] = launched.pairedP50 / upstream.pairedP50;
        figures['oursLaunchedLiveOverheadP50VsUpstreamOwnDelegates'] = launched.ownP50 / upstream.ownP50;
        figures['oursLaunchedLiveOverheadP50VsUpstreamGoDelegates'] = launched.goP50 / upstream.ownP50;
      }
      figures['shimVersionExecP50Ms'] = percentile(shimExecMs, 50);
      figures['loadAverage1mStart'] = loadStart[0] ?? Number.NaN;
      figures['loadAverage1mEnd'] = loadEnd[0] ?? Number.NaN;
      return figures;
    },
  },
  {
    name:
      'API requests per ADD at the API server (audit log, by each daemon’s user, between the shim’s start and its answer; informers’ LIST/WATCH left out), same run: ' +
      'Pod GETs, shadow NAD GETs, NAD GETs answered 404 (the cluster network, then read from confDir), pods/status writes, events, other',
    once: async (context: Context) => {
      const { samples } = await context.run();
      const figures: Record<string, number> = {};
      for (const name of SIDES) {
        const side = samples.get(name);
        if (side === undefined) continue;
        const key = FIGURE_PREFIX[name];
        const adds = side.requests.length;
        const counts: Record<RequestKind, number> = { podGet: 0, nadGet: 0, nadGetNotFound: 0, statusWrite: 0, eventWrite: 0, other: 0 };
        for (const { events } of side.requests) for (const event of events) counts[kindOf(event)] += 1;
        figures[`${key}RequestsPerAdd`] = side.requests.reduce((sum, { events }) => sum + events.length, 0) / adds;
        figures[`${key}PodGetsPerAdd`] = counts.podGet / adds;
        figures[`${key}NadGetsPerAdd`] = counts.nadGet / adds;
        figures[`${key}NadNotFoundPerAdd`] = counts.nadGetNotFound / adds;
        figures[`${key}StatusWritesPerAdd`] = counts.statusWrite / adds;
        figures[`${key}EventWritesPerAdd`] = counts.eventWrite / adds;
        figures[`${key}OtherPerAdd`] = counts.other / adds;
        if (name === 'live' || name === 'launched') {
          figures[`${key}AddsExactlyOnTarget`] = side.requests.filter(({ pod, shadows, events }) => isExactlyTarget(events, pod, shadows)).length;
          figures[`${key}Adds`] = adds;
        }
      }
      return figures;
    },
  },
];
