// The whole stack on one simulated node: a real control plane (API server with
// OwnerReferencesPermissionEnforcement, controller manager, scheduler), the chart installed from its
// rendered manifests, the three components started from their rendered workloads with the chart's RBAC
// as their only authority, a GPU stand-in next to the SR-IOV driver, and the kubelet simulator driving
// both drivers and the CNI runtime for every workload Pod.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import type { KubeClient } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  containerEnvironment,
  createNamespace,
  createReadyNode,
  freePort,
  multusBinaries,
  startControlPlane,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { type GpuStandIn, startGpuStandIn } from '../node/gpu-stand-in.ts';
import { type ChartRelease, installRelease, releaseValues, writeConfigMapVolume } from './chart-release.ts';
import { ComponentProcess } from './component-process.ts';
import { KubeletSimulator } from './kubelet-simulator.ts';
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

/** API users of the node's simulated agents. */
export const AGENT_USERS = { kubelet: 'kubelet-worker-a', gpuDriver: 'gpu-dra-driver', whereabouts: 'whereabouts' } as const;

export interface StackOptions {
  /** Audit every API request (ControlPlane.auditLog), for counting requests per component. */
  readonly audit?: boolean;
  /** Where the stack's progress and the kubelet's retries go. */
  readonly log?: (line: string) => void;
}

export interface Stack {
  readonly cp: ControlPlane;
  readonly admin: KubeClient;
  readonly node: SimulatedNode;
  readonly release: ChartRelease;
  readonly driver: ComponentProcess;
  readonly daemon: ComponentProcess;
  readonly operator: ComponentProcess;
  readonly gpu: GpuStandIn;
  readonly kubelet: KubeletSimulator;
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
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-stack-'));
  const stackLog = path.join(logDir, 'stack.log');
  const log = (line: string): void => {
    fs.appendFileSync(stackLog, `${new Date().toISOString()} ${line}\n`);
    options.log?.(line);
  };
  log('starting the control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler)');
  const cp = await startControlPlane({ controllerManager: true, scheduler: true, ...(options.audit === true ? { audit: true } : {}) });
  const admin = cp.adminClient;
  await createReadyNode(admin, NODE_NAME, { [DUAL_RAIL_LABEL]: 'true' });
  // The node's agents act with full rights (as a kubelet's and Whereabouts' own grants would let them), each
  // under its own name so that the audit log tells their requests apart.
  const node = startSimulatedNode({
    name: NODE_NAME,
    whereaboutsKubeconfig: cp.kubeconfigFor(AGENT_USERS.whereabouts, { groups: ['system:masters'] }),
    primaryBridge: `sdra${String(process.pid % 100_000)}`,
  });
  const ports = { driverHealth: await freePort(), daemonMetrics: await freePort(), operatorHealth: await freePort() };

  log('installing the chart from its rendered manifests');
  const release = await installRelease(admin, {
    namespace: RELEASE_NAMESPACE,
    operatorNamespace: OPERATOR_NAMESPACE,
    values: releaseValues(node, OPERATOR_NAMESPACE, ports),
  });
  await createNamespace(admin, WORKLOADS);

  const kubelet = new KubeletSimulator({
    client: cp.clientFor(AGENT_USERS.kubelet, ['system:masters']),
    nodeName: NODE_NAME,
    namespaces: [WORKLOADS],
    cni: node.cni,
    log,
  });
  const gpu = await startGpuStandIn({
    client: cp.clientFor(AGENT_USERS.gpuDriver, ['system:masters']),
    nodeName: NODE_NAME,
    pluginsDir: node.pluginsDir,
    registrarDir: node.registrarDir,
    gpus: GPUS,
  });
  await kubelet.registerDriver(gpu.registrationSocket);

  log('starting the Multus daemon from its DaemonSet');
  const daemonSet = release.object('DaemonSet', 'multus-live-read-proxy');
  const configDir = writeConfigMapVolume(release.object('ConfigMap', 'multus-live-read-proxy-config'), path.join(logDir, 'multus-config'));
  const entryConfig = path.join(node.cni.cniConfDir, '00-multus.conf');
  const daemon = await ComponentProcess.prepare({
    component: 'multus-live-read-proxy',
    cp,
    workload: daemonSet,
    nodeName: NODE_NAME,
    volumeContent: (volume) => (volume.configMap === undefined ? volume.hostPath?.path : configDir),
    logDir,
    ready: async () => (await httpReady(ports.daemonMetrics)) && fs.existsSync(entryConfig),
  });
  // The init container installs the upstream shim the image carries into the node's CNI binary directory.
  const [init] = daemon.podSpec.initContainers ?? [];
  const [shell, ...args] = init?.command ?? [];
  if (init === undefined || shell === undefined) throw new Error('the Multus DaemonSet has no init container command');
  const initEnv = containerEnvironment(daemon.podSpec, init, { 'spec.nodeName': NODE_NAME }, (volume) => volume.hostPath?.path);
  execFileSync(shell, args, { env: { ...initEnv, SHIM: multusBinaries().multusShim }, stdio: 'pipe' });
  await daemon.start();

  log('starting the SR-IOV DRA driver from its DaemonSet');
  const registrationSocket = path.join(node.registrarDir, `${DRIVER_NAME}-reg.sock`);
  const driver = await ComponentProcess.prepare({
    component: 'dra-driver',
    cp,
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
  await startDriver();

  log('starting the node-policy operator from its Deployment');
  const operator = await ComponentProcess.prepare({
    component: 'node-policy-operator',
    cp,
    workload: release.object('Deployment', 'node-policy-operator'),
    nodeName: NODE_NAME,
    volumeContent: (volume) => volume.hostPath?.path,
    logDir,
    ready: () => httpReady(ports.operatorHealth),
  });
  await operator.start();

  await kubelet.start();
  log('the stack is up');

  return {
    cp,
    admin,
    node,
    release,
    driver,
    daemon,
    operator,
    gpu,
    kubelet,
    logDir,
    logTail: () =>
      [
        `stack:\n${fs.readFileSync(stackLog, 'utf8').split('\n').slice(-30).join('\n')}`,
        ...[driver, daemon, operator].map((component) => `${component.name}:\n${component.logTail()}`),
      ].join('\n'),
    startDriver,
    stop: async (keepLogs = false) => {
      await kubelet.stop();
      for (const component of [operator, driver, daemon]) await component.stop();
      await gpu.stop();
      await node.stop();
      await cp.stop();
      if (keepLogs) process.stderr.write(`stack logs kept in ${logDir}\n`);
      else fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

async function waitForSocket(socket: string, owner: ComponentProcess): Promise<void> {
  await waitFor(`the registration socket ${socket}`, () => Promise.resolve(fs.existsSync(socket)), {
    timeoutMs: 60_000,
    describe: () => owner.logTail(),
  });
}
