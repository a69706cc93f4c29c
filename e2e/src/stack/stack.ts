// The whole stack on one simulated node: a real control plane (API server with
// OwnerReferencesPermissionEnforcement, controller manager, scheduler) or the cluster KUBECONFIG names,
// the chart installed from its rendered manifests, the three components started from their rendered
// workloads with the chart's RBAC as their only authority, a GPU stand-in next to the SR-IOV driver, and
// the kubelet simulator driving both drivers and the CNI runtime for every workload Pod.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type ResourceType, isApiError, resourceTypes } from '@sriov-dra/k8s';
import {
  type TcpProxy,
  containerEnvironment,
  createNamespace,
  createReadyNode,
  freePort,
  podSpecOf,
  serviceAccountToken,
  startTcpProxy,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { type GpuStandIn, startGpuStandIn } from '../node/gpu-stand-in.ts';
import { type ChartRelease, installRelease, releaseValues, writeConfigMapVolume } from './chart-release.ts';
import { type Footprint, type StackNames, deleteNamespaces, footprint, preflight, removeAdded } from './cluster-footprint.ts';
import { type Agent, type Cluster, type ClusterTarget, createAgent, openCluster, serviceAccountUser, targetFromEnv } from './cluster.ts';
import { COMPONENT_MAINS, ComponentProcess } from './component-process.ts';
import { KubeletSimulator } from './kubelet-simulator.ts';
import { setUpMultusPod } from './multus-pod-setup.ts';
import { RAIL_PFS, type SimulatedNode, startSimulatedNode } from './simulated-node.ts';

export const NODE_NAME = 'worker-a';
/** The label §14's policies and Pods select prepared nodes by. */
export const DUAL_RAIL_LABEL = 'networking.example.com/dual-rail';
export const RELEASE_NAMESPACE = 'sriov-dra';
export const OPERATOR_NAMESPACE = 'sriov-network-operator';
export const WORKLOADS = 'ai-workloads';
/** The node's two full GPUs, one under each rail's PCIe root (§14.2's acceptance fixture). */
export const GPUS = [
  { name: 'gpu-0', pcieRoot: RAIL_PFS[0].pcieRoot, uuid: 'GPU-5c2d1c7e-0a4b-4f6e-9d31-3a1f0e2b7c40' },
  { name: 'gpu-1', pcieRoot: RAIL_PFS[1].pcieRoot, uuid: 'GPU-8e4f2a91-6b3c-4d7a-a2e5-1c9d0f3b6e58' },
] as const;

/** Where the node's simulated agents have their ServiceAccounts (and Whereabouts its IP pools). */
export const AGENT_NAMESPACE = 'sriov-dra-e2e';
const AGENTS = { kubelet: 'kubelet-worker-a', gpuDriver: 'gpu-dra-driver', whereabouts: 'whereabouts' } as const;
/** API users of the node's simulated agents. */
export const AGENT_USERS = {
  kubelet: serviceAccountUser({ namespace: AGENT_NAMESPACE, name: AGENTS.kubelet }),
  gpuDriver: serviceAccountUser({ namespace: AGENT_NAMESPACE, name: AGENTS.gpuDriver }),
  whereabouts: serviceAccountUser({ namespace: AGENT_NAMESPACE, name: AGENTS.whereabouts }),
} as const;
const STACK_NAMES: StackNames = { nodeName: NODE_NAME, namespaces: [RELEASE_NAMESPACE, OPERATOR_NAMESPACE, WORKLOADS, AGENT_NAMESPACE] };

export interface StackOptions {
  /** The cluster to run against; by default what SRIOV_DRA_E2E_TARGET names (a local control plane). */
  readonly target?: ClusterTarget;
  /** Where the stack's progress and the kubelet's retries go. */
  readonly log?: (line: string) => void;
}

export interface Stack {
  readonly cluster: Cluster;
  readonly admin: KubeClient;
  readonly node: SimulatedNode;
  readonly release: ChartRelease;
  readonly driver: ComponentProcess;
  readonly daemon: ComponentProcess;
  readonly operator: ComponentProcess;
  /** Undefined on a target cluster, which cannot call back into this machine. */
  readonly webhook: ComponentProcess | undefined;
  readonly gpu: GpuStandIn;
  readonly kubelet: KubeletSimulator;
  /** The Multus daemon's way to the API server: a proxy a test can hold, to make its watches lag. */
  readonly daemonApi: TcpProxy;
  /** Another agent on the node with full rights under its own name (removed with the stack). */
  agent(name: string): Promise<Agent>;
  readonly logDir: string;
  /** The last lines of the stack's own log (progress, the kubelet's retries) and of each component's. */
  logTail(): string;
  /** Starts the driver after a kill: the kubelet registers it again once its socket is back, then it turns ready. */
  startDriver(): Promise<void>;
  /** Stops everything; the logs are kept (and their directory printed) when `keepLogs`. */
  stop(keepLogs?: boolean): Promise<void>;
}

async function httpReady(port: number, route = '/readyz'): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${String(port)}${route}`).catch(() => undefined);
  return response?.status === 200;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const target = options.target ?? targetFromEnv();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-stack-'));
  const stackLog = path.join(logDir, 'stack.log');
  const log = (line: string): void => {
    fs.appendFileSync(stackLog, `${new Date().toISOString()} ${line}\n`);
    options.log?.(line);
  };
  log(
    target.kind === 'local'
      ? 'starting the control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler)'
      : `connecting to the cluster of ${target.files.join(', ')}`,
  );
  const cluster = await openCluster(target, logDir);
  // What has been started, stopped in reverse order by stop() or when a later start fails, so that a
  // failed start leaves no process, link, namespace or (on a target cluster) object behind.
  const started: (() => Promise<void> | void)[] = [() => cluster.stop()];
  const stopStarted = async (): Promise<void> => {
    for (const stop of started.reverse()) {
      try {
        await stop();
      } catch (error) {
        process.stderr.write(`stopping the stack: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  };
  // Cluster-scoped objects of the stack's own beyond its namespaces, removed from a target cluster at the end.
  const owned: { kind: string; name: string }[] = [];
  try {
    if (target.kind === 'kubeconfig') {
      await preflight(cluster.admin, STACK_NAMES);
      const before: Footprint = await footprint(cluster.admin);
      started.push(async () => {
        log('removing what the stack added to the cluster');
        await removeAdded(cluster.admin, before, STACK_NAMES, owned);
        log('the cluster is as the stack found it');
      });
    }
    return await startOnCluster(cluster, { logDir, stackLog, log, started, stopStarted, owned });
  } catch (error) {
    await stopStarted();
    throw error;
  }
}

async function startOnCluster(
  cluster: Cluster,
  context: {
    readonly logDir: string;
    readonly stackLog: string;
    readonly log: (line: string) => void;
    readonly started: (() => Promise<void> | void)[];
    readonly stopStarted: () => Promise<void>;
    readonly owned: { kind: string; name: string }[];
  },
): Promise<Stack> {
  const { logDir, stackLog, log, started } = context;
  const admin = cluster.admin;
  await createReadyNode(admin, NODE_NAME, { [DUAL_RAIL_LABEL]: 'true' });
  // The node's agents act with full rights (as a kubelet's and Whereabouts' own grants would let them), each
  // under its own name so that the audit log tells their requests apart.
  await createNamespace(admin, AGENT_NAMESPACE);
  const agent = async (name: string): Promise<Agent> => {
    const created = await createAgent(cluster, AGENT_NAMESPACE, name);
    context.owned.push({ kind: 'ClusterRoleBinding', name: created.binding });
    return created;
  };
  const whereabouts = await agent(AGENTS.whereabouts);
  const node = startSimulatedNode({
    name: NODE_NAME,
    // Whereabouts keeps its IP pools in its kubeconfig context's namespace.
    whereaboutsKubeconfig: cluster.tokenKubeconfig(path.join(logDir, 'whereabouts.kubeconfig'), whereabouts.user, whereabouts.token, {
      namespace: AGENT_NAMESPACE,
    }),
    primaryBridge: `sdra${String(process.pid % 100_000)}`,
  });
  started.push(() => node.stop());
  const ports = { driverHealth: await freePort(), daemonMetrics: await freePort(), operatorHealth: await freePort(), webhook: await freePort() };

  log('installing the chart from its rendered manifests');
  // A cluster of someone else's cannot call a webhook on this machine: the chart is installed without it.
  const webhook = cluster.target === 'local';
  const release = await installRelease(admin, {
    namespace: RELEASE_NAMESPACE,
    operatorNamespace: OPERATOR_NAMESPACE,
    values: releaseValues(node, OPERATOR_NAMESPACE, ports, { webhook }),
  });
  context.owned.push(
    ...release.objects.flatMap((object) => {
      const metadata = object['metadata'] as { name: string; namespace?: string };
      return metadata.namespace === undefined &&
        ['ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'].includes(
          String(object['kind']),
        )
        ? [{ kind: String(object['kind']), name: metadata.name }]
        : [];
    }),
  );
  await createNamespace(admin, WORKLOADS);

  const kubelet = new KubeletSimulator({
    client: (await agent(AGENTS.kubelet)).client,
    nodeName: NODE_NAME,
    namespaces: [WORKLOADS],
    cni: node.cni,
    log,
  });
  const gpu = await startGpuStandIn({
    client: (await agent(AGENTS.gpuDriver)).client,
    nodeName: NODE_NAME,
    pluginsDir: node.pluginsDir,
    registrarDir: node.registrarDir,
    gpus: GPUS,
  });
  started.push(() => gpu.stop());
  started.push(() => kubelet.stop());
  await kubelet.registerDriver(gpu.registrationSocket);

  log('starting the Multus daemon from its DaemonSet');
  const apiServer = new URL(cluster.server);
  const daemonApi = await startTcpProxy({ host: apiServer.hostname, port: Number(apiServer.port === '' ? '443' : apiServer.port) });
  started.push(() => daemonApi.close());
  const daemonSet = release.object('DaemonSet', 'multus-live-read-proxy');
  const configDir = writeConfigMapVolume(release.object('ConfigMap', 'multus-live-read-proxy-config'), path.join(logDir, 'multus-config'));
  const entryConfig = path.join(node.cni.cniConfDir, '00-multus.conf');
  const daemon = await ComponentProcess.prepare({
    component: 'multus-live-read-proxy',
    cluster,
    server: daemonApi.via(cluster.server),
    workload: daemonSet,
    nodeName: NODE_NAME,
    volumeContent: (volume) => (volume.configMap === undefined ? volume.hostPath?.path : configDir),
    logDir,
    ready: async () => (await httpReady(ports.daemonMetrics)) && fs.existsSync(entryConfig),
  });
  setUpMultusPod(daemon, { configDir, nodeName: NODE_NAME, hostPath: (hostPath) => hostPath });
  started.push(() => daemon.stop());
  await daemon.start();

  log('starting the SR-IOV DRA driver from its DaemonSet');
  const registrationSocket = path.join(node.registrarDir, `${DRIVER_NAME}-reg.sock`);
  const driver = await ComponentProcess.prepare({
    component: 'dra-driver',
    cluster,
    workload: release.object('DaemonSet', 'dra-driver-sriov'),
    nodeName: NODE_NAME,
    volumeContent: (volume) => {
      if (volume.hostPath?.path === '/sys') return node.sysfsRoot;
      if (volume.hostPath?.path === '/dev') return node.devRoot;
      return volume.hostPath?.path;
    },
    logDir,
    ready: () => httpReady(ports.driverHealth),
  });
  const startDriver = async (): Promise<void> => {
    // The kubelet's plugin watcher sees the registration socket appear, then the driver turns ready.
    fs.rmSync(registrationSocket, { force: true });
    await driver.start(false);
    await waitForSocket(registrationSocket, driver);
    await kubelet.registerDriver(registrationSocket);
    await driver.waitReady();
  };
  started.push(() => driver.stop());
  await startDriver();

  log('starting the node-policy operator from its Deployment');
  const operator = await ComponentProcess.prepare({
    component: 'node-policy-operator',
    cluster,
    workload: release.object('Deployment', 'node-policy-operator'),
    nodeName: NODE_NAME,
    volumeContent: (volume) => volume.hostPath?.path,
    logDir,
    ready: () => httpReady(ports.operatorHealth),
  });
  started.push(() => operator.stop());
  await operator.start();

  let webhookProcess: ComponentProcess | undefined;
  if (webhook) {
    log('starting the admission webhook from its Deployment, behind its Service');
    webhookProcess = await startWebhook(cluster, release, ports.webhook, logDir, started);
  }

  await kubelet.start();
  log('the stack is up');

  return {
    cluster,
    admin,
    node,
    release,
    driver,
    daemon,
    operator,
    webhook: webhookProcess,
    gpu,
    kubelet,
    daemonApi,
    agent,
    logDir,
    logTail: () =>
      [
        `stack:\n${fs.readFileSync(stackLog, 'utf8').split('\n').slice(-30).join('\n')}`,
        ...[driver, daemon, operator, webhookProcess].flatMap((component) =>
          component === undefined ? [] : [`${component.instance}:\n${component.logTail()}`],
        ),
      ].join('\n'),
    startDriver,
    stop: async (keepLogs = false) => {
      // On a cluster that stays, Pods a failed test left are run down first, and the namespaces of the
      // workloads and of the operator's objects deleted next, while the components can still release
      // what they hold: shadows and SriovNetworks keep a finalizer until released.
      if (cluster.target === 'kubeconfig') {
        await drainWorkloads(admin, kubelet, log);
        log(`deleting the namespaces ${WORKLOADS} and ${OPERATOR_NAMESPACE} while the components run`);
        await deleteNamespaces(admin, [WORKLOADS, OPERATOR_NAMESPACE]);
      }
      // The kubelet first, which acts on all the others; stopping it again in turn does nothing.
      await kubelet.stop();
      await context.stopStarted();
      if (keepLogs) process.stderr.write(`stack logs kept in ${logDir}\n`);
      else fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Deletes the Pods left in the workloads namespace and waits until the kubelet has torn them down. */
async function drainWorkloads(admin: KubeClient, kubelet: KubeletSimulator, log: (line: string) => void): Promise<void> {
  const pods = await admin.list(resourceTypes.pod, { namespace: WORKLOADS });
  if (pods.items.length === 0) return;
  log(`deleting ${String(pods.items.length)} Pod(s) left in ${WORKLOADS}`);
  for (const pod of pods.items) {
    await admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name: pod.metadata.name }).catch((error: unknown) => {
      if (!isApiError(error, 'NotFound')) throw error;
    });
  }
  await waitFor('the Pods left behind to be torn down', async () => (await admin.list(resourceTypes.pod, { namespace: WORKLOADS })).items.length === 0, {
    timeoutMs: 120_000,
  });
  await kubelet.settled();
}

async function waitForSocket(socket: string, owner: ComponentProcess): Promise<void> {
  await waitFor(`the registration socket ${socket}`, () => Promise.resolve(fs.existsSync(socket)), {
    timeoutMs: 60_000,
    describe: () => owner.logTail(),
  });
}

/** TEST-NET-3, on a bridge of the stack's own: the API server refuses loopback endpoints, not a local address on a link. */
const WEBHOOK_ENDPOINT = '203.0.113.71';
const ENDPOINT_SLICES: ResourceType = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true };

/**
 * The webhook's Deployment run on an address of a link of its own: its init container first, as the
 * kubelet runs it (a token of the webhook's ServiceAccount; the Pod's emptyDir a directory here), which
 * creates the certificate Secret, writes the certificate and applies the caBundle; then the server, and
 * the EndpointSlice the EndpointSlice controller would write for its ready Pod: the API server then calls
 * it through the Service the chart's ValidatingWebhookConfiguration names, trusting that caBundle.
 */
async function startWebhook(
  cluster: Cluster,
  release: ChartRelease,
  port: number,
  logDir: string,
  started: (() => Promise<void> | void)[],
): Promise<ComponentProcess> {
  const link = `sdraw${String(process.pid % 100_000)}`;
  spawnSync('ip', ['link', 'del', link]);
  execFileSync('ip', ['link', 'add', link, 'type', 'bridge']);
  execFileSync('ip', ['addr', 'add', `${WEBHOOK_ENDPOINT}/32`, 'dev', link]);
  execFileSync('ip', ['link', 'set', link, 'up']);
  started.push(() => {
    spawnSync('ip', ['link', 'del', link]);
  });
  const certs = path.join(logDir, 'webhook-certs');
  fs.mkdirSync(certs);
  const deployment = release.object('Deployment', 'node-policy-operator-webhook');
  const pod = podSpecOf(deployment);
  const [init] = pod.initContainers ?? [];
  if (init === undefined) throw new Error('the webhook Deployment has no init container');
  const account = { namespace: release.namespace, name: pod.serviceAccountName };
  const token = await serviceAccountToken(cluster.admin, account);
  execFileSync(process.execPath, ['--conditions=@sriov-dra/source', COMPONENT_MAINS['node-policy-operator'], ...(init.args ?? [])], {
    env: {
      ...containerEnvironment(pod, init, {}, (volume) => (volume.name === 'certs' ? certs : undefined)),
      KUBECONFIG: cluster.tokenKubeconfig(path.join(logDir, 'webhook-certificates.kubeconfig'), serviceAccountUser(account), token),
    },
    stdio: 'pipe',
  });
  const component = await ComponentProcess.prepare({
    component: 'node-policy-operator',
    instance: 'node-policy-operator-webhook',
    credentials: false,
    cluster,
    workload: deployment,
    nodeName: NODE_NAME,
    volumeContent: (volume) => (volume.name === 'certs' ? certs : volume.hostPath?.path),
    logDir,
    ready: () => httpsHealthy(port),
  });
  started.push(() => component.stop());
  await component.start();
  await cluster.admin.create(
    ENDPOINT_SLICES,
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'node-policy-operator-webhook-e2e', labels: { 'kubernetes.io/service-name': 'node-policy-operator-webhook' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [WEBHOOK_ENDPOINT], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    },
    { namespace: release.namespace },
  );
  return component;
}

/** The webhook's own probe: GET /healthz over HTTPS (its certificate names the Service, not this address). */
function httpsHealthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => {
      resolve(false);
    });
  });
}
