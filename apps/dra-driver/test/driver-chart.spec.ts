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
import {
  containerEnvironment,
  createRendered,
  DRIVER_CHART_DIR,
  freePort,
  type KubeletPeer,
  podSpecOf,
  renderChartTemplate,
  type RenderedPodSpec,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { type DriverNode, NAMESPACE, NODE, httpGet, startDriverNode } from './driver-node-fixture.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

describe('the driver as the chart deploys it', () => {
  let node: DriverNode;
  let daemonSet: Record<string, unknown>;
  let pod: RenderedPodSpec;
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
    daemonSet = rendered;
    pod = podSpecOf(daemonSet);
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    if (driver !== undefined) await terminateChild(driver);
    await node.stop(!passed);
  }, 60_000);

  it('renders a DaemonSet the API server accepts, running as the ServiceAccount the RBAC is bound to', async () => {
    await createRendered(node.cp.adminClient, [daemonSet], NAMESPACE);
    expect(pod.serviceAccountName).toBe('dra-driver-sriov');
    expect((pod.containers[0] as { securityContext?: { privileged?: boolean } } | undefined)?.securityContext?.privileged).toBe(true);
  });

  it('starts from that environment, registers with the kubelet and turns ready on the chart’s port', async () => {
    const [container] = pod.containers;
    if (container === undefined) throw new Error('the DaemonSet has no container');
    // Field references as the kubelet resolves them for a Pod of this DaemonSet on the node; this node's /sys is the fake tree.
    const fields = { 'spec.nodeName': NODE, 'metadata.namespace': NAMESPACE };
    const env: Record<string, string> = {
      ...containerEnvironment(pod, container, fields, (volume) => (volume.hostPath?.path === '/sys' ? node.sysfsRoot : volume.hostPath?.path)),
      KUBECONFIG: node.kubeconfig,
    };
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
