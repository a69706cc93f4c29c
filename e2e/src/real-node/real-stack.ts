// The whole product on a real node, as a platform team runs it: a local control plane (Node,RBAC with
// NodeRestriction), containerd and the kubelet on this machine, the chart installed by Helm with the
// images built from the repository's Dockerfiles, and every component a Pod the kubelet runs with exactly
// the chart's mounts, securityContext, probes, ServiceAccounts and RBAC. The hardware is simulated as the
// simulated stack's is (fake sysfs served by the kernel emulator, VF netdevs as real links) and reaches the
// driver through the chart's own host.sysfsRoot value; the GPU driver is a stand-in on the host that
// registers with the real kubelet.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeClient } from '@sriov-dra/k8s';
import {
  UMBRELLA_CHART_DIR,
  cniPlugins,
  controlPlaneBinaries,
  createNamespace,
  freePort,
  helmBinary,
  installCrdObjects,
  readCrds,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { type GpuStandIn, startGpuStandIn } from '../node/gpu-stand-in.ts';
import { type Agent, type Cluster, createAgent, openCluster } from '../stack/cluster.ts';
import type { LeftoverSource } from '../stack/leftovers.ts';
import { type SimulatedNode, startSimulatedNode } from '../stack/simulated-node.ts';
import { AGENT_NAMESPACE, DUAL_RAIL_LABEL, GPUS, NODE_NAME, OPERATOR_NAMESPACE, RELEASE_NAMESPACE, WORKLOADS } from '../stack/stack.ts';
import { type ChartImages, chartImages } from './chart-images.ts';
import { writeGpuCdiSpec } from './gpu-cdi.ts';
import { deleteNamespacePods } from './workload.ts';
import { PAUSE_IMAGE, type RealNode, lockMachine, startRealNode } from './real-node.ts';

export const RELEASE = 'sriov-dra';

export interface RealStack {
  readonly cluster: Cluster;
  readonly admin: KubeClient;
  readonly hardware: SimulatedNode;
  readonly node: RealNode;
  readonly gpu: GpuStandIn;
  readonly images: ChartImages;
  readonly logDir: string;
  /** Values the release was installed with (helm upgrade reuses them). */
  readonly values: Record<string, unknown>;
  /** What a Pod's life may leave behind, looked for where this node keeps it (the kubelet's plugin directory). */
  readonly leftoverSource: LeftoverSource;
  /** `helm` against the stack's control plane. */
  helm(args: readonly string[]): string;
  /** `helm upgrade --reuse-values --set <each> --wait` of the release: a change of values as an administrator rolls it out. */
  upgrade(settings: readonly string[]): void;
  /** `kubectl` against the stack's control plane, as its admin. */
  kubectl(args: readonly string[], input?: string): string;
  logTail(): string;
  stop(keepLogs?: boolean): Promise<void>;
}

/** The release's values for this node: the locally built images, never pulled, and the node's host paths. */
export function realNodeValues(
  hardware: SimulatedNode,
  node: RealNode,
  images: ChartImages,
  ports: { readonly driverHealth: number; readonly daemonMetrics: number },
) {
  // localhost/sriov-dra/<app>: the registry is the name's first component.
  const image = (name: keyof ChartImages['apps']) => {
    const [registry = '', ...repository] = images.apps[name].repository.split('/');
    return { registry, repository: repository.join('/'), tag: images.apps[name].tag, pullPolicy: 'Never' };
  };
  return {
    global: { operatorNamespace: OPERATOR_NAMESPACE },
    'dra-driver': {
      image: image('dra-driver'),
      configurationMode: 'MULTUS',
      multusAutoAttach: true,
      healthcheckPort: ports.driverHealth,
      host: { kubeletDir: node.kubeletDir, cdiRoot: hardware.cdiRoot, sysfsRoot: hardware.sysfsRoot },
    },
    'multus-live-read-proxy': {
      image: image('multus-live-read-proxy'),
      metricsPort: ports.daemonMetrics,
      // The real kubelet's PodResources socket, for NADs that name a resourceName.
      host: { ...hardware.cni, podResourcesDir: path.join(node.kubeletDir, 'pod-resources') },
    },
    'node-policy-operator': {
      image: image('node-policy-operator'),
      replicas: 1,
      webhook: { enabled: true, replicas: 1 },
      crds: { upstreamOwned: 'apply' },
    },
  };
}

export async function startRealStack(options: { readonly log?: (line: string) => void } = {}): Promise<RealStack> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-real-'));
  const stackLog = path.join(logDir, 'stack.log');
  const log = (line: string): void => {
    fs.appendFileSync(stackLog, `${new Date().toISOString()} ${line}\n`);
    options.log?.(line);
  };
  const started: (() => Promise<void> | void)[] = [];
  const stopStarted = async (): Promise<void> => {
    for (const stop of started.reverse()) {
      try {
        await stop();
      } catch (error) {
        process.stderr.write(`stopping the real-node stack: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    started.length = 0;
  };
  try {
    // The simulated hardware's links have fixed names: the machine is held before they are made, not only
    // once the node starts (the node takes the same lock again).
    started.push(await lockMachine(log));
    const images = chartImages();
    log('starting the control plane (etcd, kube-apiserver with Node,RBAC, kube-controller-manager, kube-scheduler)');
    const cluster = await openCluster({ kind: 'local' }, logDir);
    started.push(() => cluster.stop());
    const controlPlane = cluster.controlPlane;
    if (controlPlane === undefined) throw new Error('the real node needs the local control plane');
    const admin = cluster.admin;
    await createNamespace(admin, AGENT_NAMESPACE);
    const agent = (name: string): Promise<Agent> => createAgent(cluster, AGENT_NAMESPACE, name);
    const whereabouts = await agent('whereabouts');

    const containerdState = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-rn-'));
    started.push(() => {
      fs.rmSync(containerdState, { recursive: true, force: true });
    });
    // containerd mounts Pod network namespaces below its state directory; the node's paths must name them.
    const netnsDir = path.join(containerdState, 'containerd/state/io.containerd.grpc.v1.cri/netns');
    const podBridge = `sdrap${String(process.pid % 100_000)}`;
    const hardware = startSimulatedNode({
      name: NODE_NAME,
      whereaboutsKubeconfig: cluster.tokenKubeconfig(path.join(logDir, 'whereabouts.kubeconfig'), whereabouts.user, whereabouts.token, {
        namespace: AGENT_NAMESPACE,
      }),
      primaryBridge: podBridge,
      runtime: { netnsDir },
    });
    started.push(() => hardware.stop());
    writeGpuCdiSpec(hardware.cdiRoot, GPUS);

    log('starting containerd and the kubelet');
    const node = await startRealNode({
      controlPlane,
      name: NODE_NAME,
      labels: { [DUAL_RAIL_LABEL]: 'true' },
      root: containerdState,
      cni: { binDir: hardware.cni.cniBinDir, confDir: hardware.cni.cniConfDir },
      cdiRoot: hardware.cdiRoot,
      podBridge,
      images: [images.pause.archive, images.busybox.archive, ...Object.values(images.apps).map((app) => app.archive)],
      log,
    });
    started.push(() => node.stop());
    if (!node.ctr(['images', 'ls', '-q']).includes(PAUSE_IMAGE)) throw new Error(`containerd has no ${PAUSE_IMAGE} after the import`);

    const gpu = await startGpuStandIn({
      client: (await agent('gpu-dra-driver')).client,
      nodeName: NODE_NAME,
      pluginsDir: path.join(node.kubeletDir, 'plugins'),
      registrarDir: path.join(node.kubeletDir, 'plugins_registry'),
      gpus: GPUS,
    });
    started.push(() => gpu.stop());

    const helm = (args: readonly string[]): string =>
      execFileSync(helmBinary(), [...args, '--kubeconfig', cluster.adminKubeconfig], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const kubectl = (args: readonly string[], input?: string): string =>
      execFileSync(controlPlaneBinaries().kubectl, ['--kubeconfig', cluster.adminKubeconfig, ...args], {
        encoding: 'utf8',
        input,
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });

    // helm install brings only the chart's own CRDs; the ones other projects own come from the release's
    // pre-install hook (node-policy-operator.crds.upstreamOwned=apply): a Job running `crds apply` in the
    // operator's image on this node, as its own ServiceAccount, before any other object of the release.
    log('installing the chart with helm install --wait (its crds apply hook first)');
    await installCrdObjects(admin, readCrds(cniPlugins().whereaboutsCrdsDir));
    for (const namespace of [OPERATOR_NAMESPACE, WORKLOADS]) await createNamespace(admin, namespace);
    const values = realNodeValues(hardware, node, images, { driverHealth: await freePort(), daemonMetrics: await freePort() });
    const valuesFile = path.join(logDir, 'values.json');
    fs.writeFileSync(valuesFile, JSON.stringify(values, null, 2));
    try {
      helm(['install', RELEASE, UMBRELLA_CHART_DIR, '--namespace', RELEASE_NAMESPACE, '--create-namespace', '-f', valuesFile, '--wait', '--timeout', '5m']);
    } catch (error) {
      const pods = kubectl(['get', 'pods', '-A', '-o', 'wide']);
      const events = kubectl(['get', 'events', '-A', '--sort-by=.lastTimestamp']).split('\n').slice(-40).join('\n');
      throw new Error(`helm install failed: ${error instanceof Error ? error.message : String(error)}\n${pods}\n${events}\n${node.logTail()}`, {
        cause: error,
      });
    }
    started.push(() => {
      // Uninstall while the node runs, so the components release what they hold (shadows, finalizers).
      try {
        helm(['uninstall', RELEASE, '--namespace', RELEASE_NAMESPACE, '--wait', '--timeout', '2m']);
      } catch (error) {
        log(`helm uninstall: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    await waitFor(
      'the Multus daemon to write the node’s 00-multus.conf',
      () => Promise.resolve(fs.existsSync(path.join(hardware.cni.cniConfDir, '00-multus.conf'))),
      {
        timeoutMs: 60_000,
      },
    );
    log('the real-node stack is up');

    return {
      cluster,
      admin,
      hardware,
      node,
      gpu,
      images,
      logDir,
      values,
      leftoverSource: { admin, gpu, node: { ...hardware, pluginsDir: path.join(node.kubeletDir, 'plugins') } },
      helm,
      upgrade: (settings) => {
        helm([
          'upgrade',
          RELEASE,
          UMBRELLA_CHART_DIR,
          '--namespace',
          RELEASE_NAMESPACE,
          '--reuse-values',
          ...settings.flatMap((setting) => ['--set', setting]),
          '--wait',
          '--timeout',
          '5m',
        ]);
      },
      kubectl,
      logTail: () => {
        const pods = (() => {
          try {
            return kubectl(['get', 'pods', '-A', '-o', 'wide']);
          } catch (error) {
            return String(error);
          }
        })();
        return `stack:\n${fs.readFileSync(stackLog, 'utf8').split('\n').slice(-30).join('\n')}\n${pods}\n${node.logTail()}`;
      },
      stop: async (keepLogs = false) => {
        // Run down while the components still run, so they release what they hold; a failure to do so is
        // what the leftover checks report, not a reason to keep the node up.
        await deleteNamespacePods(admin, WORKLOADS).catch(() => undefined);
        await stopStarted();
        if (keepLogs) process.stderr.write(`real-node stack logs kept in ${logDir}\n`);
        else fs.rmSync(logDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopStarted();
    throw error;
  }
}
