// The Multus daemon as the chart deploys it, on a real API server: the ServiceAccount, RBAC, ConfigMap
// and DaemonSet Helm renders are accepted; the init container's command installs the upstream multus-shim
// into the node's CNI binary directory; and the daemon started with exactly the container's environment
// and the ConfigMap's daemon-config.json (mounts mapped to this test's directories, field references
// resolved as the kubelet does) turns ready and writes the node's entry configuration naming its socket.
// A kubeconfig with the ServiceAccount's token stands in for the in-cluster token mount.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  PROXY_CHART_DIR,
  createNamespace,
  freePort,
  installCrds,
  multusBinaries,
  renderChartTemplate,
  startControlPlane,
  terminateChild,
  waitFor,
  writeKubeconfig,
} from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const NAMESPACE = 'sriov-dra';
const NODE = 'worker-a';
const TYPES: Readonly<Record<string, ResourceType>> = {
  ServiceAccount: resourceTypes.serviceAccount,
  ClusterRole: resourceTypes.clusterRole,
  ClusterRoleBinding: resourceTypes.clusterRoleBinding,
  ConfigMap: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true },
};

interface Container {
  readonly command?: readonly string[];
  readonly env: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } } }[];
  readonly volumeMounts: readonly { readonly name: string; readonly mountPath: string }[];
}
interface DaemonSetPod {
  readonly serviceAccountName: string;
  readonly initContainers: readonly Container[];
  readonly containers: readonly Container[];
  readonly volumes: readonly { readonly name: string; readonly hostPath?: { readonly path: string }; readonly configMap?: { readonly name: string } }[];
}

describe('the Multus daemon as the chart deploys it', () => {
  let cp: ControlPlane;
  let root: string;
  let host: { cniBinDir: string; cniConfDir: string; cacheDir: string; socketDir: string; netnsDir: string };
  let metricsPort: number;
  let objects: Record<string, unknown>[];
  let pod: DaemonSetPod;
  let daemon: ChildProcess | undefined;

  const rendered = (kind: string): Record<string, unknown> => {
    const object = objects.find((candidate) => candidate['kind'] === kind);
    if (object === undefined) throw new Error(`the chart rendered no ${kind}`);
    return object;
  };
  /** What a container sees at `value`: under a hostPath mount, the host path; under the ConfigMap's, where the test wrote its data. */
  const seenAs = (container: Container, value: string, configDir: string): string => {
    for (const mount of container.volumeMounts) {
      if (value !== mount.mountPath && !value.startsWith(`${mount.mountPath}/`)) continue;
      const volume = pod.volumes.find((candidate) => candidate.name === mount.name);
      const base = volume?.configMap !== undefined ? configDir : volume?.hostPath?.path;
      if (base !== undefined) return `${base}${value.slice(mount.mountPath.length)}`;
    }
    return value;
  };
  const environment = (container: Container, configDir: string): Record<string, string> => {
    const fields: Record<string, string> = { 'spec.nodeName': NODE, 'metadata.namespace': NAMESPACE };
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
    for (const variable of container.env) {
      const field = variable.valueFrom?.fieldRef?.fieldPath;
      const value = field === undefined ? variable.value : fields[field];
      if (value === undefined) throw new Error(`cannot resolve ${variable.name}`);
      env[variable.name] = seenAs(container, value, configDir);
    }
    return env;
  };

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
    pod = (rendered('DaemonSet') as { spec: { template: { spec: DaemonSetPod } } }).spec.template.spec;
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined) await terminateChild(daemon);
    await cp.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('renders objects the API server accepts', async () => {
    for (const object of objects) {
      const type = TYPES[String(object['kind'])];
      if (type === undefined) throw new Error(`unexpected ${String(object['kind'])}`);
      await cp.adminClient.create(type, object, type.namespaced ? { namespace: NAMESPACE } : {});
    }
    expect(objects.map((object) => object['kind'])).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'DaemonSet']);
  });

  it('installs the upstream multus-shim into the node’s CNI binary directory with the init container’s command', () => {
    const [init] = pod.initContainers;
    if (init?.command === undefined) throw new Error('the DaemonSet has no init container command');
    const [shell, ...args] = init.command;
    // The image carries the shim at SHIM; here it is the upstream binary tools/ built.
    const env = { ...environment(init, ''), SHIM: multusBinaries().multusShim };
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
    // The primary network the auto mode builds the entry configuration from, as the node's network plugin leaves it.
    fs.writeFileSync(
      path.join(host.cniConfDir, '10-primary.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'primary',
        plugins: [{ type: 'bridge', bridge: 'cni0', ipam: { type: 'host-local', subnet: '10.244.0.0/24' } }],
      }),
    );
    const issued = (await cp.adminClient.request({
      method: 'POST',
      path: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${pod.serviceAccountName}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    })) as { status: { token: string } };
    const kubeconfig = writeKubeconfig(path.join(root, 'daemon.kubeconfig'), cp.server, cp.caCert, pod.serviceAccountName, { token: issued.status.token });

    const env = { ...environment(container, configDir), KUBECONFIG: kubeconfig };
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
