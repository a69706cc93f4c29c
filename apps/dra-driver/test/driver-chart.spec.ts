// The driver as the chart deploys it: the DaemonSet Helm renders (values for a node whose kubelet
// directory and CDI root are this test's) is accepted by the API server, and the driver started with
// exactly that container's environment — field references resolved as the kubelet resolves them, the
// node's /sys seen through the fake sysfs — registers with the kubelet's code and becomes ready on the
// chart's health port. Only the credentials differ: a kubeconfig with the ServiceAccount's token stands
// in for the in-cluster token mount.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ResourceType } from '@sriov-dra/k8s';
import { DRIVER_CHART_DIR, freePort, renderChartTemplate, terminateChild, waitFor } from '@sriov-dra/k8s/testing';
import { type DriverNode, NAMESPACE, NODE, httpGet, startDriverNode } from './driver-node-fixture.ts';
import type { KubeletPeer } from './kubelet-peer.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const DAEMON_SETS: ResourceType = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } };
}
interface DaemonSet {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly template: {
      readonly spec: {
        readonly serviceAccountName: string;
        readonly containers: readonly {
          readonly env: readonly EnvVar[];
          readonly volumeMounts: readonly { readonly name: string; readonly mountPath: string }[];
          readonly securityContext?: { readonly privileged?: boolean };
        }[];
        readonly volumes: readonly { readonly name: string; readonly hostPath?: { readonly path: string } }[];
      };
    };
  };
}

describe('the driver as the chart deploys it', () => {
  let node: DriverNode;
  let daemonSet: DaemonSet;
  let port: number;
  let driver: ChildProcess | undefined;
  let peer: KubeletPeer | undefined;
  let passed = false;

  beforeAll(async () => {
    node = await startDriverNode('driver-chart', ['driver-rbac.yaml', 'managed-networks-rbac.yaml']);
    port = await freePort();
    const values = {
      host: { kubeletDir: node.dir, cdiRoot: node.cdiRoot },
      healthcheckPort: port,
      configurationMode: 'MULTUS',
      multusAutoAttach: true,
    };
    const [rendered] = renderChartTemplate(DRIVER_CHART_DIR, 'daemonset.yaml', { namespace: NAMESPACE, values });
    if (rendered === undefined) throw new Error('the chart rendered no DaemonSet');
    daemonSet = rendered as unknown as DaemonSet;
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    if (driver !== undefined) await terminateChild(driver);
    await node.stop(!passed);
  }, 60_000);

  it('renders a DaemonSet the API server accepts, running as the ServiceAccount the RBAC is bound to', async () => {
    const created = await node.cp.adminClient.create(DAEMON_SETS, daemonSet as unknown as Record<string, unknown>, { namespace: NAMESPACE });
    expect(created.metadata.name).toBe('dra-driver-sriov');
    const pod = daemonSet.spec.template.spec;
    expect(pod.serviceAccountName).toBe('dra-driver-sriov');
    expect(pod.containers[0]?.securityContext?.privileged).toBe(true);
  });

  it('starts from that environment, registers with the kubelet and turns ready on the chart’s port', async () => {
    const container = daemonSet.spec.template.spec.containers[0];
    if (container === undefined) throw new Error('the DaemonSet has no container');
    // What the kubelet resolves field references to, for a Pod of this DaemonSet on the node.
    const fields: Record<string, string> = { 'spec.nodeName': NODE, 'metadata.namespace': NAMESPACE };
    // What the container sees at a mount is the host path behind it; this node's /sys is the fake tree.
    const hostPaths: Record<string, string> = { '/sys': node.sysfsRoot };
    const volumes = new Map(daemonSet.spec.template.spec.volumes.map((volume) => [volume.name, volume.hostPath?.path]));
    const seenAs = (value: string): string => {
      const mount = container.volumeMounts.find((candidate) => candidate.mountPath === value);
      const hostPath = mount === undefined ? undefined : volumes.get(mount.name);
      return hostPath === undefined ? value : (hostPaths[hostPath] ?? hostPath);
    };
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', KUBECONFIG: node.kubeconfig };
    for (const variable of container.env) {
      const field = variable.valueFrom?.fieldRef?.fieldPath;
      const value = field === undefined ? variable.value : fields[field];
      if (value === undefined) throw new Error(`cannot resolve ${variable.name}`);
      env[variable.name] = seenAs(value);
    }
    expect(env['SYSFS_ROOT']).toBe(node.sysfsRoot);

    const logFile = path.join(node.dir, 'driver.log');
    const log = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    driver = child;
    await waitFor('the driver to serve the kubelet sockets', () => Promise.resolve(fs.readFileSync(logFile, 'utf8').includes('kubelet plugin serving')), {
      timeoutMs: 60_000,
      alive: () => child.exitCode === null,
      describe: () => fs.readFileSync(logFile, 'utf8'),
    });
    peer = await node.register();
    await waitFor('/readyz on the chart’s port', async () => (await httpGet(port, '/readyz')).status === 200, { timeoutMs: 30_000 });
    const started = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : {}))
      .find((entry) => entry['msg'] === 'serving node');
    expect(started).toMatchObject({ node: NODE, nodeUID: node.nodeUID, mode: 'MULTUS' });
    passed = true;
  }, 120_000);
});
