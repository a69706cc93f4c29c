// N simulated nodes on one real control plane (its audit log on): the chart installed once, one operator
// whose node policies cover every node, and per node its own driver, Multus daemon and kubelet simulator
// (fleet-node.ts). The fleet grows by whole nodes; each joins once its driver publishes both rails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeClient } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, freePort, waitFor } from '@sriov-dra/k8s/testing';
import { createOneVfTemplate } from '../scenarios/churn.ts';
import { createPcieDeviceClasses } from '../scenarios/gpu-nic-pairs.ts';
import { type ChartRelease, installRelease } from '../stack/chart-release.ts';
import { type Cluster, openCluster } from '../stack/cluster.ts';
import { ComponentProcess } from '../stack/component-process.ts';
import { AGENT_NAMESPACE, OPERATOR_NAMESPACE, RELEASE_NAMESPACE, WORKLOADS } from '../stack/stack.ts';
import { type FleetContext, type FleetNode, fleetNodeName, kubeletAccount, startFleetNode } from './fleet-node.ts';
import { type FleetRail, createFleetRails, fleetRails, publishedValues } from './fleet-rails.ts';
import { fleetValues } from './fleet-release.ts';
import type { Identities } from './api-load.ts';

/** Nodes started side by side: the API waits overlap, the components' starts share the two cores. */
const STARTS_AT_ONCE = 3;

export interface Fleet {
  readonly cluster: Cluster;
  readonly controlPlane: ControlPlane;
  readonly admin: KubeClient;
  readonly release: ChartRelease;
  readonly operator: ComponentProcess;
  readonly nodes: readonly FleetNode[];
  readonly rails: readonly FleetRail[];
  readonly identities: Identities;
  readonly logDir: string;
  /** kube-apiserver's process ID. */
  readonly apiServerPid: number;
  /** Adds nodes until the fleet has `count`; resolves once each new node's driver publishes both rails. */
  grow(count: number): Promise<void>;
  stop(keepLogs?: boolean): Promise<void>;
}

async function httpReady(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${String(port)}/readyz`).catch(() => undefined);
  return response?.status === 200;
}

/** Waits until the driver of every node in `names` publishes VFs of every rail's network. */
export async function waitForRails(admin: KubeClient, names: readonly string[], rails: readonly FleetRail[], timeoutMs: number): Promise<void> {
  await waitFor(
    `the drivers of ${String(names.length)} node(s) to publish both rails`,
    async () => {
      const published = await publishedValues(admin, 'netAttachDefName');
      return names.every((name) => rails.every((rail) => published.get(name)?.has(rail.network) === true));
    },
    { timeoutMs },
  );
}

export async function startFleet(options: { readonly log?: (line: string) => void } = {}): Promise<Fleet> {
  const log = options.log ?? (() => undefined);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-fleet-'));
  log('starting the control plane with its audit log');
  const cluster = await openCluster({ kind: 'local', audit: true }, logDir);
  const nodes: FleetNode[] = [];
  let operator: ComponentProcess | undefined;
  const stopAll = async (): Promise<void> => {
    // Nodes side by side: each stop waits on its own processes.
    await Promise.all(nodes.map((node) => node.stop()));
    await operator?.stop();
    await cluster.stop();
  };
  try {
    const controlPlane = cluster.controlPlane;
    const apiServerPid = controlPlane?.components().find((component) => component.name === 'kube-apiserver')?.pid;
    if (controlPlane === undefined || apiServerPid === undefined) throw new Error('the fleet needs its own control plane');
    const admin = cluster.admin;
    await createNamespace(admin, AGENT_NAMESPACE);
    const operatorHealth = await freePort();
    log('installing the chart from its rendered manifests');
    const release = await installRelease(admin, {
      namespace: RELEASE_NAMESPACE,
      operatorNamespace: OPERATOR_NAMESPACE,
      values: fleetValues({ operatorNamespace: OPERATOR_NAMESPACE, operatorNode: fleetNodeName(0), operatorHealth }),
    });
    await createNamespace(admin, WORKLOADS);
    const hostLocalDir = path.join(logDir, 'host-local');
    const context: FleetContext = {
      cluster,
      release,
      agentNamespace: AGENT_NAMESPACE,
      workloads: [WORKLOADS],
      // The fleet's networks use host-local IPAM: Whereabouts is configured on each node but never called.
      whereaboutsKubeconfig: path.join(logDir, 'whereabouts.kubeconfig'),
      logDir,
    };
    const nodeUids = new Map<string, string>();
    const addNodes = async (count: number): Promise<string[]> => {
      const added: string[] = [];
      while (nodes.length < count) {
        const batch = Array.from({ length: Math.min(STARTS_AT_ONCE, count - nodes.length) }, (_, offset) => nodes.length + offset);
        const results = await Promise.allSettled(batch.map((index) => startFleetNode(context, index)));
        for (const result of results) {
          if (result.status !== 'fulfilled') continue;
          nodes.push(result.value);
          nodeUids.set(result.value.name, result.value.uid);
        }
        const failed = results.find((result) => result.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        added.push(...batch.map(fleetNodeName));
        log(`${String(nodes.length)} node(s) up`);
      }
      return added;
    };
    await addNodes(1);
    log('starting the node-policy operator from its Deployment');
    operator = await ComponentProcess.prepare({
      component: 'node-policy-operator',
      cluster,
      workload: release.object('Deployment', 'node-policy-operator'),
      nodeName: fleetNodeName(0),
      volumeContent: (volume) => volume.hostPath?.path,
      logDir,
      ready: () => httpReady(operatorHealth),
    });
    await operator.start();
    const first = nodes[0];
    const [railA, railB] = first?.node.pfs ?? [];
    if (first === undefined || railA === undefined || railB === undefined) throw new Error('the first node has no two rails');
    const rails = fleetRails([railA.pciAddress, railB.pciAddress]);
    await createPcieDeviceClasses(admin);
    await createOneVfTemplate(admin);
    await createFleetRails(admin, { operatorNamespace: OPERATOR_NAMESPACE, workloads: WORKLOADS, hostLocalDir, rails });
    await waitForRails(admin, [first.name], rails, 120_000);
    const started = operator;
    return {
      cluster,
      controlPlane,
      admin,
      release,
      operator: started,
      nodes,
      rails,
      identities: { releaseNamespace: RELEASE_NAMESPACE, kubeletPrefix: `system:serviceaccount:${AGENT_NAMESPACE}:${kubeletAccount('')}`, nodeUids },
      logDir,
      apiServerPid,
      grow: async (count) => {
        const added = await addNodes(count);
        await waitForRails(admin, added, rails, 60_000 + 10_000 * added.length);
      },
      stop: async (keepLogs = false) => {
        await stopAll();
        if (keepLogs) process.stderr.write(`fleet logs kept in ${logDir}\n`);
        else fs.rmSync(logDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    process.stderr.write(`fleet logs kept in ${logDir}\n`);
    throw error;
  }
}
