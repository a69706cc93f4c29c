// What the kubelet does for a Pod bound to the node, with the real peers at every boundary it crosses:
// it waits until the real scheduler and resourceclaim controller have allocated and reserved the Pod's
// claims, calls NodePrepareResources on each DRA driver through the kubelet's own plugin client (one
// kubelet-peer per driver, registered over the drivers' registration sockets), creates a network
// namespace as the sandbox, runs CNI ADD by executing the binary the node's first CNI configuration names
// (the upstream multus-shim, which hands the call to the Multus daemon), and reports the Pod Running. A
// Pod being deleted is torn down in the kubelet's order (CNI DEL, sandbox removal, unprepare) before its
// deletion is completed. Containers themselves are not run: nothing here depends on them.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Informer, type KubeClient, type KubeObject, contentTypes, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { KubeletPeer, type PeerAnswer, type PeerClaim } from '@sriov-dra/k8s/testing';
import type { CniHostPaths } from './simulated-node.ts';

interface PodClaimRef {
  readonly name: string;
  readonly resourceClaimName?: string;
  readonly resourceClaimTemplateName?: string;
}

export interface SimulatedPod extends KubeObject {
  readonly spec: { readonly nodeName?: string; readonly resourceClaims?: readonly PodClaimRef[] };
  readonly status?: { readonly phase?: string; readonly resourceClaimStatuses?: readonly { readonly name: string; readonly resourceClaimName?: string }[] };
}

interface AllocatedClaim extends KubeObject {
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: readonly { readonly driver: string; readonly request: string; readonly pool: string; readonly device: string }[];
      };
    };
    readonly reservedFor?: readonly { readonly uid: string }[];
  };
}

/** One sandbox: what the runtime created for the Pod and what CNI ADD answered. */
export interface Sandbox {
  readonly containerID: string;
  readonly netns: string;
  readonly netnsPath: string;
  /** CNI ADD's result, as the shim printed it. */
  readonly result: { readonly ips?: readonly { readonly address: string }[] };
  /** The entry configuration its CNI calls use when not the node's first. */
  readonly config?: Buffer;
}

/** When each step of a Pod's start finished, in performance.now() milliseconds. */
export interface PodTimeline {
  readonly seen: number;
  prepared?: number;
  added?: number;
  tornDown?: number;
}

/**
 * How a test steps into one Pod's start: a moment between its claims being allocated and their prepare,
 * and another Multus on the node for its CNI calls (its entry configuration, and the sandbox path as that
 * daemon sees the node's network namespaces).
 */
export interface PodHooks {
  beforePrepare?(pod: SimulatedPod): Promise<void>;
  cniFor?(pod: SimulatedPod): { readonly config: Buffer; readonly netnsPath: (netns: string) => string } | undefined;
}

export interface KubeletSimulatorOptions {
  readonly client: KubeClient;
  readonly nodeName: string;
  /** Namespaces whose Pods this kubelet runs; the stack's own Pods (its DaemonSets) are run as processes instead. */
  readonly namespaces: readonly string[];
  readonly cni: CniHostPaths;
  readonly log: (line: string) => void;
}

const RETRY_MS = 300;
/** How often the node's Lease is renewed and its Ready condition reported, as the kubelet's defaults do. */
const HEARTBEAT_MS = 10_000;
/**
 * A kubelet-peer process answers one call at a time, where a kubelet calls a driver for several Pods at
 * once: each driver gets this many, each registered as the kubelet registers a plugin, taken in turn.
 */
const PEERS_PER_DRIVER = 4;
/**
 * How long a call to a driver may stay unanswered before it counts as failed and is retried on the next
 * peer: past the kubelet's own 45 s DRA call timeout, which the peer applies, so only a call the peer
 * never answers (one caught in a driver's re-registration) is cut short.
 */
const CALL_DEADLINE_MS = 50_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class KubeletSimulator {
  readonly #options: KubeletSimulatorOptions;
  readonly #peers = new Map<string, KubeletPeer[]>();
  #turn = 0;
  readonly #runs = new Map<string, Promise<void>>();
  readonly #sandboxes = new Map<string, Sandbox>();
  readonly #prepared = new Map<string, Map<string, PeerClaim[]>>();
  readonly #timelines = new Map<string, PodTimeline>();
  readonly #deleting = new Set<string>();
  readonly #abort = new AbortController();
  #hooks: PodHooks = {};
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #readySince: string | undefined;
  #informer: Informer<SimulatedPod> | undefined;
  #informerRun: Promise<void> | undefined;

  constructor(options: KubeletSimulatorOptions) {
    this.#options = options;
  }

  /** Registers a DRA driver as the kubelet's plugin watcher does when its registration socket appears. */
  async registerDriver(registrationSocket: string): Promise<string> {
    const peers: KubeletPeer[] = [];
    let driver = '';
    for (let index = 0; index < PEERS_PER_DRIVER; index += 1) {
      const peer = await KubeletPeer.start();
      peers.push(peer);
      const answer = await peer.send({ op: 'register', socket: registrationSocket });
      if (!answer.ok) {
        for (const started of peers) await started.close();
        throw new Error(`the kubelet refused the plugin at ${registrationSocket}: ${answer.error ?? ''}\n${peer.log}`);
      }
      driver = (answer.result as { driverName: string }).driverName;
    }
    for (const previous of this.#peers.get(driver) ?? []) await previous.close();
    this.#peers.set(driver, peers);
    return driver;
  }

  setPodHooks(hooks: PodHooks): void {
    this.#hooks = hooks;
  }

  /** Starts running the node's Pods and keeping the node alive; returns once the first list is in. */
  async start(): Promise<void> {
    // Without renewals the node lifecycle controller marks the node unreachable after its grace period and
    // taints it: nothing more would be scheduled here.
    await this.#renewNode();
    this.#heartbeat = setInterval(() => {
      this.#renewNode().catch((error: unknown) => {
        this.#options.log(`node heartbeat: ${error instanceof Error ? error.message : String(error)}`);
      });
    }, HEARTBEAT_MS);
    const informer = new Informer<SimulatedPod>(
      this.#options.client,
      resourceTypes.pod,
      {
        onAdd: (pod) => {
          this.#observe(pod);
        },
        onUpdate: (_previous, pod) => {
          this.#observe(pod);
        },
        onDelete: (pod) => {
          this.#observe(pod, true);
        },
      },
      { fieldSelector: `spec.nodeName=${this.#options.nodeName}`, resyncMs: 2_000 },
    );
    this.#informer = informer;
    this.#informerRun = informer.run(this.#abort.signal);
    await informer.waitForSync(this.#abort.signal);
  }

  /** The Pod's sandbox while it runs. */
  sandbox(podUID: string): Sandbox | undefined {
    return this.#sandboxes.get(podUID);
  }

  timeline(podUID: string): PodTimeline | undefined {
    return this.#timelines.get(podUID);
  }

  /** Waits until every Pod seen so far is either running or torn down. */
  async settled(): Promise<void> {
    await Promise.all(this.#runs.values());
  }

  async stop(): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#abort.abort();
    await this.#informerRun;
    await Promise.allSettled(this.#runs.values());
    for (const peer of [...this.#peers.values()].flat()) await peer.close();
    this.#peers.clear();
    // Pods still running when the node goes (a failed test): their sandboxes go with it, as on a reboot.
    for (const sandbox of this.#sandboxes.values()) spawnSync('ip', ['netns', 'del', sandbox.netns]);
    this.#sandboxes.clear();
  }

  /** What the kubelet's node status and lease loops write: the Lease in kube-node-lease, and Ready with a fresh heartbeat. */
  async #renewNode(): Promise<void> {
    const { client, nodeName } = this.#options;
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const spec = { holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime: now };
    try {
      await client.patch(resourceTypes.lease, { namespace: 'kube-node-lease', name: nodeName }, { spec }, contentTypes.mergePatch);
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
      await client.create(
        resourceTypes.lease,
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: nodeName }, spec },
        { namespace: 'kube-node-lease' },
      );
    }
    const heartbeat = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.#readySince ??= heartbeat;
    // A merge patch replaces the list: Ready is the only condition this node reports.
    await client.patch(
      resourceTypes.node,
      { name: nodeName, subresource: 'status' },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated', lastHeartbeatTime: heartbeat, lastTransitionTime: this.#readySince },
          ],
        },
      },
      contentTypes.mergePatch,
    );
  }

  #observe(pod: SimulatedPod, gone = false): void {
    if (!this.#options.namespaces.includes(pod.metadata.namespace ?? '')) return;
    const uid = pod.metadata.uid;
    const deleting = gone || pod.metadata.deletionTimestamp !== undefined;
    if (!this.#timelines.has(uid) && !deleting) {
      this.#timelines.set(uid, { seen: performance.now() });
      this.#chain(uid, () => this.#run(pod));
    }
    if (deleting && !this.#deleting.has(uid) && this.#timelines.has(uid)) {
      this.#deleting.add(uid);
      this.#chain(uid, () => this.#tearDown(pod, gone));
    }
  }

  /** Steps of one Pod run one after another; Pods run side by side. */
  #chain(uid: string, step: () => Promise<void>): void {
    const previous = this.#runs.get(uid) ?? Promise.resolve();
    const next = previous.then(step).catch((error: unknown) => {
      this.#options.log(`pod ${uid}: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.#runs.set(uid, next);
  }

  #stopped(uid: string): boolean {
    return this.#abort.signal.aborted || this.#deleting.has(uid);
  }

  async #run(pod: SimulatedPod): Promise<void> {
    const uid = pod.metadata.uid;
    const who = `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
    const claims = await this.#awaitClaims(pod);
    if (claims === undefined) return;
    // The kubelet prepares each driver's claims with one call per driver.
    const byDriver = new Map<string, PeerClaim[]>();
    for (const claim of claims) {
      for (const driver of new Set((claim.status?.allocation?.devices?.results ?? []).map((result) => result.driver))) {
        byDriver.set(driver, [
          ...(byDriver.get(driver) ?? []),
          { namespace: claim.metadata.namespace ?? '', uid: claim.metadata.uid, name: claim.metadata.name },
        ]);
      }
    }
    this.#prepared.set(uid, byDriver);
    await this.#hooks.beforePrepare?.(pod);
    for (const [driver, driverClaims] of byDriver) {
      while (!this.#stopped(uid)) {
        const failure = await this.#call(driver, 'prepare', driverClaims);
        if (failure === undefined) {
          this.#options.log(`${who}: prepared on ${driver}`);
          break;
        }
        this.#options.log(`${who}: NodePrepareResources on ${driver} failed, retrying: ${failure}`);
        await sleep(RETRY_MS);
      }
    }
    if (this.#stopped(uid)) return;
    const timeline = this.#timelines.get(uid);
    if (timeline !== undefined) timeline.prepared = performance.now();

    this.#options.log(`${who}: creating the sandbox, CNI ADD`);
    const netns = `sdra-${uid.slice(0, 8)}-${randomBytes(3).toString('hex')}`;
    execFileSync('ip', ['netns', 'add', netns]);
    const containerID = randomBytes(32).toString('hex');
    const other = this.#hooks.cniFor?.(pod);
    const netnsPath = other?.netnsPath(netns) ?? path.join('/var/run/netns', netns);
    let result: Sandbox['result'] | undefined;
    while (!this.#stopped(uid)) {
      const add = await this.#cni('ADD', pod, containerID, netnsPath, other?.config);
      if (add.code === 0) {
        this.#options.log(`${who}: CNI ADD done in ${netns}`);
        result = JSON.parse(add.stdout) as Sandbox['result'];
        break;
      }
      this.#options.log(`${who}: CNI ADD failed, retrying after DEL: ${add.stdout}${add.stderr}`);
      await this.#cni('DEL', pod, containerID, netnsPath, other?.config);
      await sleep(RETRY_MS);
    }
    this.#sandboxes.set(uid, { containerID, netns, netnsPath, result: result ?? {}, ...(other === undefined ? {} : { config: other.config }) });
    if (result === undefined) return;
    if (timeline !== undefined) timeline.added = performance.now();
    await this.#reportRunning(pod, result);
  }

  /** The Pod's claims once each is allocated and reserved for it; undefined when the Pod went first. */
  async #awaitClaims(pod: SimulatedPod): Promise<AllocatedClaim[] | undefined> {
    const namespace = pod.metadata.namespace ?? '';
    for (;;) {
      if (this.#stopped(pod.metadata.uid)) return undefined;
      const live = this.#informer?.get(`${namespace}/${pod.metadata.name}`) ?? pod;
      const names = (live.spec.resourceClaims ?? []).map(
        (ref) => ref.resourceClaimName ?? live.status?.resourceClaimStatuses?.find((status) => status.name === ref.name)?.resourceClaimName,
      );
      if (names.every((name) => name !== undefined)) {
        const claims = await Promise.all(
          names.map((name) => this.#options.client.get<AllocatedClaim>(resourceTypes.resourceClaim, { namespace, name }).catch(() => undefined)),
        );
        const ready = claims.every(
          (claim) => claim?.status?.allocation !== undefined && (claim.status.reservedFor ?? []).some((consumer) => consumer.uid === pod.metadata.uid),
        );
        if (ready) return claims as AllocatedClaim[];
      }
      await sleep(100);
    }
  }

  /** One prepare or unprepare call; the failure text, or undefined when every claim succeeded. */
  async #call(driver: string, op: 'prepare' | 'unprepare', claims: readonly PeerClaim[]): Promise<string | undefined> {
    const peers = this.#peers.get(driver) ?? [];
    const peer = peers[this.#turn++ % Math.max(1, peers.length)];
    if (peer === undefined) return `no plugin for driver ${driver} is registered`;
    // A peer replaced by a re-registration (the driver restarted) rejects what it had in flight: a failed call, retried.
    let deadline: NodeJS.Timeout | undefined;
    const unanswered = new Promise<PeerAnswer>((resolve) => {
      deadline = setTimeout(() => {
        resolve({ id: 0, ok: false, error: `no answer from the kubelet within ${String(CALL_DEADLINE_MS)} ms` });
      }, CALL_DEADLINE_MS);
    });
    // A late answer still resolves its own waiter inside the peer, so the peer's answers stay in order.
    const answer = await Promise.race([
      peer.send({ op, claims }).catch((error: unknown): PeerAnswer => ({ id: 0, ok: false, error: error instanceof Error ? error.message : String(error) })),
      unanswered,
    ]).finally(() => {
      clearTimeout(deadline);
    });
    if (!answer.ok) return answer.error ?? 'failed';
    const failed = Object.entries((answer.result ?? {}) as Record<string, { error?: string }>).filter(([, claim]) => (claim.error ?? '') !== '');
    return failed.length === 0 ? undefined : failed.map(([claimUID, claim]) => `${claimUID}: ${claim.error ?? ''}`).join('; ');
  }

  /** Executes the plugin the node's first CNI configuration names, as libcni does, with that configuration on stdin. */
  async #cni(
    command: 'ADD' | 'DEL',
    pod: SimulatedPod,
    containerID: string,
    netnsPath: string,
    given?: Buffer,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { cniConfDir, cniBinDir } = this.#options.cni;
    const entry = fs
      .readdirSync(cniConfDir)
      .filter((file) => /\.(conf|conflist|json)$/.test(file))
      .sort()[0];
    if (given === undefined && entry === undefined) return { code: null, stdout: '', stderr: `no CNI configuration in ${cniConfDir}` };
    const config = given ?? fs.readFileSync(path.join(cniConfDir, entry ?? ''));
    const type = (JSON.parse(config.toString('utf8')) as { type?: string }).type ?? '';
    const args = [
      'IgnoreUnknown=1',
      `K8S_POD_NAMESPACE=${pod.metadata.namespace ?? ''}`,
      `K8S_POD_NAME=${pod.metadata.name}`,
      `K8S_POD_INFRA_CONTAINER_ID=${containerID}`,
      `K8S_POD_UID=${pod.metadata.uid}`,
    ].join(';');
    const env = {
      CNI_COMMAND: command,
      CNI_CONTAINERID: containerID,
      CNI_NETNS: netnsPath,
      CNI_IFNAME: 'eth0',
      CNI_ARGS: args,
      CNI_PATH: cniBinDir,
      PATH: process.env['PATH'] ?? '',
    };
    const child = spawn(path.join(cniBinDir, type), [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
      child.stdin.end(config);
    });
    return { code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
  }

  async #reportRunning(pod: SimulatedPod, result: Sandbox['result']): Promise<void> {
    const now = new Date().toISOString();
    const podIP = result.ips?.[0]?.address.split('/')[0];
    const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
    await this.#options.client
      .patch(
        resourceTypes.pod,
        { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name, subresource: 'status' },
        {
          metadata: { uid: pod.metadata.uid },
          status: {
            phase: 'Running',
            startTime: now,
            ...(podIP === undefined ? {} : { podIP, podIPs: [{ ip: podIP }] }),
            conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(condition),
          },
        },
        contentTypes.mergePatch,
      )
      .catch((error: unknown) => {
        // Deleted meanwhile: the teardown that follows is what matters.
        if (!isApiError(error, 'NotFound') && !isApiError(error, 'Conflict')) throw error;
      });
  }

  async #tearDown(pod: SimulatedPod, gone: boolean): Promise<void> {
    const uid = pod.metadata.uid;
    const who = `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
    const sandbox = this.#sandboxes.get(uid);
    if (sandbox !== undefined) {
      for (;;) {
        const del = await this.#cni('DEL', pod, sandbox.containerID, sandbox.netnsPath, sandbox.config);
        if (del.code === 0 || this.#abort.signal.aborted) break;
        this.#options.log(`${who}: CNI DEL failed, retrying: ${del.stdout}${del.stderr}`);
        await sleep(RETRY_MS);
      }
      execFileSync('ip', ['netns', 'del', sandbox.netns]);
      this.#sandboxes.delete(uid);
    }
    for (const [driver, claims] of this.#prepared.get(uid) ?? new Map<string, PeerClaim[]>()) {
      for (;;) {
        const failure = await this.#call(driver, 'unprepare', claims);
        if (failure === undefined || this.#abort.signal.aborted) break;
        this.#options.log(`${who}: NodeUnprepareResources on ${driver} failed, retrying: ${failure}`);
        await sleep(RETRY_MS);
      }
    }
    this.#prepared.delete(uid);
    const timeline = this.#timelines.get(uid);
    if (timeline !== undefined) timeline.tornDown = performance.now();
    if (gone) return;
    await this.#options.client
      .delete(resourceTypes.pod, { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name }, { gracePeriodSeconds: 0, uid })
      .catch((error: unknown) => {
        if (!isApiError(error, 'NotFound') && !isApiError(error, 'Conflict')) throw error;
      });
  }
}
