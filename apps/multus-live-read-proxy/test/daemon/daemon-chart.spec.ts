// The Multus daemon as the chart deploys it, on a real API server: the ServiceAccount, RBAC, ConfigMap
// and DaemonSet Helm renders are accepted; the init container's command installs the upstream multus-shim
// into the node's CNI binary directory; and the daemon started with exactly the container's environment
// and the ConfigMap's daemon-config.json (mounts mapped to this test's directories, the host's root the
// delegates are chrooted into to `/`, field references resolved as the kubelet does) turns ready and writes the node's entry configuration naming its socket.
// A kubeconfig with the ServiceAccount's token stands in for the in-cluster token mount.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeClient, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  PROXY_CHART_DIR,
  type RenderedPodSpec,
  containerEnvironment,
  createNamespace,
  createRendered,
  freePort,
  installCrds,
  multusBinaries,
  podSpecOf,
  renderChartTemplate,
  serviceAccountKubeconfig,
  startControlPlane,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { findSourceTemplates } from '../../src/preflight/source-templates.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const NAMESPACE = 'sriov-dra';
const NODE = 'worker-a';

describe('the Multus daemon as the chart deploys it', () => {
  let cp: ControlPlane;
  let root: string;
  let host: { cniBinDir: string; cniConfDir: string; cacheDir: string; socketDir: string; netnsDir: string };
  let metricsPort: number;
  let objects: Record<string, unknown>[];
  let pod: RenderedPodSpec;
  let daemon: ChildProcess | undefined;

  const rendered = (kind: string): Record<string, unknown> => {
    const object = objects.find((candidate) => candidate['kind'] === kind);
    if (object === undefined) throw new Error(`the chart rendered no ${kind}`);
    return object;
  };
  const fields = { 'spec.nodeName': NODE, 'metadata.namespace': NAMESPACE };

  beforeAll(async () => {
    cp = await startControlPlane();
    await installCrds(cp.adminClient);
    await createNamespace(cp.adminClient, NAMESPACE);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'daemon-chart-'));
    host = {
      cniBinDir: path.join(root, 'opt/cni/bin'),
      cniConfDir: path.join(root, 'etc/cni/net.d'),
      cacheDir: path.join(root, 'var/lib/cni/multus'),
      socketDir: path.join(root, 'run/multus'),
      netnsDir: path.join(root, 'var/run/netns'),
    };
    // What the kubelet does for DirectoryOrCreate host paths.
    for (const dir of Object.values(host)) fs.mkdirSync(dir, { recursive: true });
    metricsPort = await freePort();
    const values = { host, metricsPort };
    objects = ['serviceaccount.yaml', 'rbac.yaml', 'configmap.yaml', 'daemonset.yaml'].flatMap((template) =>
      renderChartTemplate(PROXY_CHART_DIR, template, { namespace: NAMESPACE, values }),
    );
    pod = podSpecOf(rendered('DaemonSet'));
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined) await terminateChild(daemon);
    await cp.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('renders objects the API server accepts', async () => {
    expect(objects.map((object) => object['kind'])).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'DaemonSet']);
    await createRendered(cp.adminClient, objects, NAMESPACE);
  });

  it('grants preflight, run with the daemon’s ServiceAccount, every read it makes to find the node’s source templates', async () => {
    const kubeconfig = await serviceAccountKubeconfig(cp, { namespace: NAMESPACE, name: pod.serviceAccountName }, path.join(root, 'preflight.kubeconfig'));
    await cp.adminClient.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    const client = KubeClient.fromKubeConfig(kubeconfig);
    try {
      const facts = await findSourceTemplates(client, { nodeName: NODE, driverNamespace: undefined });
      expect({ forbidden: facts.forbidden, errors: facts.errors }).toEqual({ forbidden: [], errors: [] });
    } finally {
      client.close();
    }
  });

  it('installs the upstream multus-shim into the node’s CNI binary directory with the init container’s command', () => {
    const [init] = pod.initContainers ?? [];
    if (init?.command === undefined) throw new Error('the DaemonSet has no init container command');
    const [shell, ...args] = init.command;
    // The image carries the shim at SHIM; here it is the upstream binary tools/ built.
    const env = { ...containerEnvironment(pod, init, fields), SHIM: multusBinaries().multusShim };
    execFileSync(shell ?? '', args, { env, stdio: 'pipe' });
    const installed = path.join(host.cniBinDir, 'multus-shim');
    expect(fs.readdirSync(host.cniBinDir)).toEqual(['multus-shim']);
    expect(fs.statSync(installed).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(installed).equals(fs.readFileSync(multusBinaries().multusShim))).toBe(true);
  });

  it('starts from that environment and configuration, turns ready and writes the entry configuration naming its socket', async () => {
    const [container] = pod.containers;
    if (container === undefined) throw new Error('the DaemonSet has no container');
    const configDir = path.join(root, 'configmap');
    fs.mkdirSync(configDir);
    const data = (rendered('ConfigMap') as { data: Record<string, string> }).data;
    for (const [name, text] of Object.entries(data)) fs.writeFileSync(path.join(configDir, name), text);
    // Delegates run chrooted into the host's root, which the container has mounted where chrootDir says;
    // this process runs on the host itself, where that root is the mounted volume's own path, `/`.
    const { chrootDir, ...rest } = JSON.parse(data['daemon-config.json'] ?? '{}') as { chrootDir?: string };
    const hostRoot = container.volumeMounts?.find((mount) => mount.mountPath === chrootDir);
    const hostRootVolume = pod.volumes?.find((volume) => volume.name === hostRoot?.name);
    expect({ chrootDir, hostPath: hostRootVolume?.hostPath?.path }).toEqual({ chrootDir: '/hostroot', hostPath: '/' });
    fs.writeFileSync(path.join(configDir, 'daemon-config.json'), JSON.stringify({ ...rest, chrootDir: hostRootVolume?.hostPath?.path }));
    // The primary network the auto mode builds the entry configuration from, as the node's network plugin leaves it.
    fs.writeFileSync(
      path.join(host.cniConfDir, '10-primary.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'primary',
        plugins: [{ type: 'bridge', bridge: 'cni0', ipam: { type: 'host-local', subnet: '10.244.0.0/24' } }],
      }),
    );
    const kubeconfig = await serviceAccountKubeconfig(cp, { namespace: NAMESPACE, name: pod.serviceAccountName }, path.join(root, 'daemon.kubeconfig'));
    // The ConfigMap's volume is where the test wrote its data; host paths are this test's directories already.
    const env = {
      ...containerEnvironment(pod, container, fields, (volume) => (volume.configMap === undefined ? volume.hostPath?.path : configDir)),
      KUBECONFIG: kubeconfig,
    };
    const logFile = path.join(root, 'daemon.log');
    const log = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    daemon = child;
    await waitFor(
      '/readyz on the chart’s port',
      async () => (await fetch(`http://127.0.0.1:${String(metricsPort)}/readyz`).catch(() => undefined))?.status === 200,
      { timeoutMs: 60_000, alive: () => child.exitCode === null, describe: () => fs.readFileSync(logFile, 'utf8') },
    );
    const entry = path.join(host.cniConfDir, '00-multus.conf');
    await waitFor('the entry configuration', () => Promise.resolve(fs.existsSync(entry)), {
      timeoutMs: 30_000,
      describe: () => fs.readFileSync(logFile, 'utf8'),
    });
    const written = JSON.parse(fs.readFileSync(entry, 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ type: 'multus-shim', daemonSocketDir: host.socketDir, liveNetworkConfigOnAdd: true });
    expect(fs.readdirSync(host.socketDir)).toContain('multus.sock');
  }, 120_000);
});
