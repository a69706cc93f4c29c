// One node of the fleet: its Node object (the simulated kubelet renews its Lease and Ready condition), a
// fake sysfs with the two rails' PFs (VF netdevs named after the node, so that nodes side by side in this
// network namespace never share a link), its SriovNetworkNodeState, its own Multus daemon and driver
// started from the fleet's DaemonSets with tokens bound to their own Pods on this node, and a kubelet
// simulator that runs the node's workload Pods through both.
import fs from 'node:fs';
import path from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { createReadyNode, freePort, waitFor } from '@sriov-dra/k8s/testing';
import { reportNodeState } from '../scenarios/operator-rails.ts';
import type { ChartRelease } from '../stack/chart-release.ts';
import { type Cluster, createAgent } from '../stack/cluster.ts';
import { ComponentProcess } from '../stack/component-process.ts';
import { KubeletSimulator } from '../stack/kubelet-simulator.ts';
import { setUpMultusPod } from '../stack/multus-pod-setup.ts';
import { type SimulatedNode, startSimulatedNode } from '../stack/simulated-node.ts';
import { FLEET_LABEL, nodePath, nodeVolumeContent, writeNodeConfigMap } from './fleet-release.ts';

export interface FleetContext {
  readonly cluster: Cluster;
  readonly release: ChartRelease;
  /** Namespace of the simulated kubelets' ServiceAccounts. */
  readonly agentNamespace: string;
  /** Namespaces whose Pods the kubelets run. */
  readonly workloads: readonly string[];
  readonly whereaboutsKubeconfig: string;
  readonly logDir: string;
}

export interface FleetNode {
  readonly name: string;
  readonly uid: string;
  readonly node: SimulatedNode;
  readonly kubelet: KubeletSimulator;
  readonly driver: ComponentProcess;
  readonly daemon: ComponentProcess;
  stop(): Promise<void>;
}

/** The fleet's node names, in the order they join. */
export function fleetNodeName(index: number): string {
  return `fleet-${String(index).padStart(3, '0')}`;
}

/** The simulated kubelet's ServiceAccount on node `name`. */
export function kubeletAccount(name: string): string {
  return `kubelet-${name}`;
}

async function httpReady(port: number, route = '/readyz'): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${String(port)}${route}`).catch(() => undefined);
  return response?.status === 200;
}

export async function startFleetNode(context: FleetContext, index: number): Promise<FleetNode> {
  const { cluster, release } = context;
  const name = fleetNodeName(index);
  const logDir = path.join(context.logDir, name);
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'node.log');
  const log = (line: string): void => {
    fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
  };
  const started: (() => Promise<void> | void)[] = [];
  const stop = async (): Promise<void> => {
    for (const step of started.reverse()) {
      try {
        await step();
      } catch (error) {
        process.stderr.write(`stopping ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    started.length = 0;
  };
  try {
    const { uid } = (await createReadyNode(cluster.admin, name, { [FLEET_LABEL]: 'true' })).metadata;
    const agent = await createAgent(cluster, context.agentNamespace, kubeletAccount(name));
    const node = startSimulatedNode({
      name,
      whereaboutsKubeconfig: context.whereaboutsKubeconfig,
      // IFNAMSIZ: a VF's link is `<pf>v<index>`, 15 characters at most.
      pfNetdevs: [`fl${String(index)}a`, `fl${String(index)}b`],
      primaryBridge: `flbr${String(index)}p${String(process.pid % 1000)}`,
    });
    started.push(() => node.stop());
    await reportNodeState(cluster.admin, release.operatorNamespace, node);
    const kubelet = new KubeletSimulator({ client: agent.client, nodeName: name, namespaces: context.workloads, cni: node.cni, log });
    started.push(() => kubelet.stop());

    const ports = { driverHealth: await freePort(), daemonMetrics: await freePort() };
    const daemonSet = release.object('DaemonSet', 'multus-live-read-proxy');
    const configDir = writeNodeConfigMap(release.object('ConfigMap', 'multus-live-read-proxy-config'), node, path.join(logDir, 'multus-config'));
    const entryConfig = path.join(node.cni.cniConfDir, '00-multus.conf');
    const daemon = await ComponentProcess.prepare({
      component: 'multus-live-read-proxy',
      cluster,
      workload: daemonSet,
      nodeName: name,
      volumeContent: nodeVolumeContent(node, configDir),
      environmentOverrides: { METRICS_PORT: String(ports.daemonMetrics) },
      logDir,
      ready: async () => (await httpReady(ports.daemonMetrics)) && fs.existsSync(entryConfig),
    });
    setUpMultusPod(daemon, { configDir, nodeName: name, hostPath: (hostPath) => nodePath(node, hostPath) });
    started.push(() => daemon.stop());
    await daemon.start();

    const driver = await ComponentProcess.prepare({
      component: 'dra-driver',
      cluster,
      workload: release.object('DaemonSet', 'dra-driver-sriov'),
      nodeName: name,
      volumeContent: nodeVolumeContent(node),
      environmentOverrides: { HEALTHCHECK_PORT: String(ports.driverHealth) },
      logDir,
      ready: () => httpReady(ports.driverHealth),
    });
    started.push(() => driver.stop());
    const registrationSocket = path.join(node.registrarDir, `${DRIVER_NAME}-reg.sock`);
    await driver.start(false);
    await waitFor(`${name}: the driver's registration socket`, () => Promise.resolve(fs.existsSync(registrationSocket)), {
      timeoutMs: 90_000,
      describe: () => driver.logTail(),
    });
    await kubelet.registerDriver(registrationSocket);
    await driver.waitReady();
    await kubelet.start();
    log('the node is up');
    return { name, uid, node, kubelet, driver, daemon, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
