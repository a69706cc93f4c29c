// A component of the stack run the way its rendered workload would run it on the node: the program the
// image's entrypoint starts (here from the workspace's sources), the container's arguments, and exactly
// the container's environment — field references resolved for the Pod the workload's controller created,
// volume paths mapped to this node's directories — with a ServiceAccount token bound to that Pod standing
// in for the in-cluster token mount. It can be killed and started again, as a node restarts a container.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeClient, KubeObject } from '@sriov-dra/k8s';
import { resourceTypes } from '@sriov-dra/k8s';
import {
  type RenderedContainer,
  type RenderedPodSpec,
  type RenderedVolume,
  containerEnvironment,
  podSpecOf,
  serviceAccountToken,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { type Cluster, serviceAccountUser } from './cluster.ts';

/** The program each component's image starts. */
export const COMPONENT_MAINS = {
  'dra-driver': fileURLToPath(new URL('../../../apps/dra-driver/src/main.ts', import.meta.url)),
  'multus-live-read-proxy': fileURLToPath(new URL('../../../apps/multus-live-read-proxy/src/main.ts', import.meta.url)),
  'node-policy-operator': fileURLToPath(new URL('../../../apps/node-policy-operator/src/main.ts', import.meta.url)),
} as const;

export type ComponentName = keyof typeof COMPONENT_MAINS;

export interface ComponentOptions {
  readonly component: ComponentName;
  readonly cluster: Cluster;
  /** Where its kubeconfig sends it instead of the API server's address (a proxy in front of it). */
  readonly server?: string;
  /** The rendered DaemonSet or Deployment. */
  readonly workload: Record<string, unknown>;
  readonly nodeName: string;
  /** Where the content of a volume is on this machine; a host path is itself unless mapped here. */
  readonly volumeContent: (volume: RenderedVolume) => string | undefined;
  readonly logDir: string;
  /** Names its log and kubeconfig when two workloads run one program (the operator and its webhook); default: the component. */
  readonly instance?: string;
  /** False for a workload that mounts no API token (the webhook): no credentials are issued. */
  readonly credentials?: boolean;
  /**
   * Variables set over the container's environment, for what one machine cannot give several simulated
   * nodes as real ones have it: their host-network Pods share this machine's ports, so each needs its own.
   */
  readonly environmentOverrides?: Readonly<Record<string, string>>;
  /** Whether the component is ready (its probe); polled after each start. */
  readonly ready: () => Promise<boolean>;
}

/** The Pod the workload's controller (DaemonSet or ReplicaSet) created on the node, once it exists. */
async function controllerPod(client: KubeClient, workload: Record<string, unknown>, nodeName: string): Promise<KubeObject> {
  const metadata = workload['metadata'] as { namespace: string; name: string };
  const selector = (workload as { spec: { selector: { matchLabels: Record<string, string> } } }).spec.selector.matchLabels;
  const labelSelector = Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  let found: KubeObject | undefined;
  await waitFor(
    `a Pod of ${String(workload['kind'])} ${metadata.namespace}/${metadata.name} on ${nodeName}`,
    async () => {
      const pods = await client.list<KubeObject & { spec: { nodeName?: string } }>(resourceTypes.pod, { namespace: metadata.namespace, labelSelector });
      found = pods.items.find((pod) => pod.spec.nodeName === nodeName && pod.metadata.deletionTimestamp === undefined);
      return found !== undefined;
    },
    { timeoutMs: 60_000 },
  );
  if (found === undefined) throw new Error('unreachable: waitFor returned without a Pod');
  return found;
}

export class ComponentProcess {
  readonly #options: ComponentOptions;
  readonly #pod: RenderedPodSpec;
  readonly #container: RenderedContainer;
  #env: Record<string, string> = {};
  #child: ChildProcess | undefined;
  #starts = 0;

  private constructor(options: ComponentOptions) {
    this.#options = options;
    this.#pod = podSpecOf(options.workload);
    const [container] = this.#pod.containers;
    if (container === undefined) throw new Error(`${options.component}: the workload has no container`);
    this.#container = container;
  }

  /** Resolves the component's Pod and credentials; `start` runs it. */
  static async prepare(options: ComponentOptions): Promise<ComponentProcess> {
    const component = new ComponentProcess(options);
    const pod = await controllerPod(options.cluster.admin, options.workload, options.nodeName);
    const namespace = pod.metadata.namespace ?? '';
    const fields = { 'spec.nodeName': options.nodeName, 'metadata.namespace': namespace, 'metadata.name': pod.metadata.name };
    component.#env = { ...containerEnvironment(component.#pod, component.#container, fields, options.volumeContent), ...options.environmentOverrides };
    if (options.credentials !== false) {
      const account = { namespace, name: component.#pod.serviceAccountName };
      const token = await serviceAccountToken(options.cluster.admin, account, { boundTo: { name: pod.metadata.name, uid: pod.metadata.uid } });
      component.#env['KUBECONFIG'] = options.cluster.tokenKubeconfig(
        path.join(options.logDir, `${component.instance}.kubeconfig`),
        serviceAccountUser(account),
        token,
        options.server === undefined ? {} : { server: options.server },
      );
    }
    return component;
  }

  get name(): ComponentName {
    return this.#options.component;
  }

  get instance(): string {
    return this.#options.instance ?? this.#options.component;
  }

  get podSpec(): RenderedPodSpec {
    return this.#pod;
  }

  get environment(): Readonly<Record<string, string>> {
    return this.#env;
  }

  /**
   * Where a path the container names is on this machine: under the content of the volume mounted there,
   * as the environment's paths are mapped; a path under no mapped mount is itself.
   */
  pathOnThisMachine(containerPath: string): string {
    for (const mount of this.#container.volumeMounts ?? []) {
      if (containerPath !== mount.mountPath && !containerPath.startsWith(`${mount.mountPath}/`)) continue;
      const volume = this.#pod.volumes?.find((candidate) => candidate.name === mount.name);
      const content = volume === undefined ? undefined : this.#options.volumeContent(volume);
      if (content !== undefined) return path.join(content, containerPath.slice(mount.mountPath.length));
    }
    return containerPath;
  }

  get logFile(): string {
    return path.join(this.#options.logDir, `${this.instance}.log`);
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the program (its log appended to logFile); `untilReady` waits for its probe too. */
  async start(untilReady = true): Promise<void> {
    this.#starts += 1;
    const log = fs.openSync(this.logFile, 'a');
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', COMPONENT_MAINS[this.#options.component], ...(this.#container.args ?? [])], {
      env: this.#env,
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    this.#child = child;
    if (untilReady) await this.waitReady();
  }

  async waitReady(): Promise<void> {
    const child = this.#child;
    await waitFor(`${this.instance} to become ready (start ${String(this.#starts)})`, this.#options.ready, {
      timeoutMs: 90_000,
      alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
      describe: () => this.logTail(),
    });
  }

  /** SIGKILL, as a node losing the container; nothing of the process's own shutdown runs. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        resolve();
      });
    });
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM and wait, as the kubelet stops a container. */
  async stop(): Promise<void> {
    if (this.#child !== undefined) await terminateChild(this.#child);
  }

  logTail(lines = 40): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '';
  }
}
