// Upstream multus-daemon v4.2.3 as a node runs it, on the test's node fixture: its own socket, its own
// delegate cache, its API traffic to an address of the test's choosing, and no file outside a temp dir.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { createRoleBinding, multusBinaries, waitFor } from '@sriov-dra/k8s/testing';
import { socketRequest } from '../server/socket-http.ts';
import type { NodeFixture } from '../pipeline/node-fixture.ts';

function tail(file: string): string {
  try {
    return `${file}:\n${readFileSync(file, 'utf8').split('\n').slice(-20).join('\n')}`;
  } catch {
    return `${file}: absent`;
  }
}

/** A sandbox's path as this daemon sees it (see LAUNCH). */
export function upstreamNetnsPath(sandboxName: string): string {
  return `/run/netns/${sandboxName}`;
}

/** The identity upstream's manifest (deployments/multus-daemonset-thick.yml) runs the daemon as. */
export const UPSTREAM_USER = 'system:serviceaccount:kube-system:multus';

export interface UpstreamDaemon {
  /** The directory the shim's daemonSocketDir names. */
  readonly socketDir: string;
  /** Where the daemon's delegate cache lives (cniDir). */
  readonly cniDir: string;
  readonly logFile: string;
  /** The last lines of its output and log, for a failure's message. */
  readonly logTail: () => string;
  stop(): Promise<void>;
}

/**
 * The ServiceAccount, ClusterRole and ClusterRoleBinding of upstream's thick manifest, and a token for it.
 */
export async function grantUpstreamMultus(admin: KubeClient): Promise<string> {
  await admin.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'multus' } }, { namespace: 'kube-system' });
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'multus' },
    rules: [
      { apiGroups: ['k8s.cni.cncf.io'], resources: ['*'], verbs: ['*'] },
      { apiGroups: [''], resources: ['pods', 'pods/status'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ],
  });
  await createRoleBinding(admin, {
    metadata: { name: 'multus' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'multus' },
    subjects: [{ kind: 'ServiceAccount', name: 'multus', namespace: 'kube-system' }],
  });
  const request = (await admin.request({
    method: 'POST',
    path: '/api/v1/namespaces/kube-system/serviceaccounts/multus/token',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  })) as { status: { token: string } };
  return request.status.token;
}

// multus-daemon only knows in-cluster configuration (rest.InClusterConfig: KUBERNETES_SERVICE_HOST/PORT and
// a token and CA under /var/run/secrets/kubernetes.io/serviceaccount). It runs in a mount namespace of its
// own with a tmpfs on /var holding that directory, so the host's /var is untouched, and libcni's result
// cache (/var/lib/cni) dies with the daemon. The kubelet's pod-resources directory, which upstream reads at
// its fixed path /var/lib/kubelet/pod-resources, is a directory of the test's bound there when one is given.
// Slave propagation lets the sandboxes the test creates later in
// /run/netns (a shared mount) appear inside; /var/run/netns does not, so requests name /run/netns paths.
const LAUNCH =
  'mount -t tmpfs tmpfs /var && mkdir -p /var/run/secrets/kubernetes.io && cp -r "$1" /var/run/secrets/kubernetes.io/serviceaccount && ' +
  '{ [ -z "$4" ] || { mkdir -p /var/lib/kubelet/pod-resources && mount --bind "$4" /var/lib/kubelet/pod-resources; }; } && exec "$2" -config "$3"';

/**
 * The daemon's mount namespace receives the sandboxes mounted later under /run/netns only if /run/netns is
 * a shared mount point when the daemon starts. iproute2 makes it one at the first `ip netns add` after
 * boot; on a freshly booted machine the daemon can start before that, and its copy of /run/netns is then
 * a plain directory in which every later sandbox is an empty file (its ADD fails with "unknown FS magic").
 * One namespace added and deleted first makes the mount point.
 */
function ensureNetnsMountPoint(): void {
  const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4]);
  if (mountPoints.includes('/run/netns')) return;
  const name = `netns-mount-point-${String(process.pid)}`;
  execFileSync('ip', ['netns', 'add', name]);
  execFileSync('ip', ['netns', 'del', name]);
}

/**
 * Starts upstream multus-daemon with clusterNetwork "primary" from the fixture's confDir, the fixture's CNI
 * plugins, and its Pod informer on `nodeName`. Configuration mode is auto, reading the fixture's confDir and
 * writing 00-multus.conf into a temp cniConfigDir: in v4.2.3 only the auto mode's configuration manager
 * keeps the process alive (with a user-provided file, main returns as soon as the socket serves). Resolves once its socket
 * answers /healthz, which upstream serves only after both informers synced.
 */
export async function startUpstreamDaemon(options: {
  readonly dir: string;
  readonly node: NodeFixture;
  readonly nodeName: string;
  /** https://127.0.0.1:<port>: the API server, or a proxy in front of it. */
  readonly apiServer: string;
  readonly caCert: string;
  readonly token: string;
  /**
   * The delegate cache directory; default: one of its own in `dir`. It must lie outside /var, which the
   * daemon sees as its private tmpfs.
   */
  readonly cniDir?: string;
  /** A directory to serve as the kubelet's /var/lib/kubelet/pod-resources (its kubelet.sock); default none. */
  readonly podResourcesDir?: string;
}): Promise<UpstreamDaemon> {
  const { dir, node } = options;
  const serviceAccount = join(dir, 'serviceaccount');
  const socketDir = join(dir, 'run');
  const cniDir = options.cniDir ?? join(dir, 'multus-cache');
  if (/^\/var(\/|$)/.test(resolve(cniDir))) throw new Error(`cniDir ${cniDir} is under /var, which upstream multus-daemon sees as its own tmpfs`);
  const cniConfigDir = join(dir, 'net.d');
  await mkdir(serviceAccount, { recursive: true });
  await mkdir(cniConfigDir, { recursive: true });
  await writeFile(join(serviceAccount, 'token'), options.token);
  await copyFile(options.caCert, join(serviceAccount, 'ca.crt'));
  await writeFile(join(serviceAccount, 'namespace'), 'kube-system');
  const config = join(dir, 'daemon-config.json');
  const logFile = join(dir, 'multus-daemon.log');
  await writeFile(
    config,
    JSON.stringify({
      chrootDir: '',
      socketDir,
      logFile,
      logLevel: 'verbose',
      cniVersion: '1.0.0',
      binDir: node.binDirs[0],
      confDir: node.confDir,
      cniDir,
      cniConfigDir,
      multusConfigFile: 'auto',
      multusAutoconfigDir: node.confDir,
      clusterNetwork: 'primary',
      multusNamespace: 'kube-system',
    }),
  );
  const { port } = new URL(options.apiServer);
  const out = openSync(join(dir, 'multus-daemon.out'), 'a');
  ensureNetnsMountPoint();
  const child: ChildProcess = spawn(
    'unshare',
    ['--mount', '--propagation', 'slave', '--', 'sh', '-c', LAUNCH, 'sh', serviceAccount, multusBinaries().multusDaemon, config, options.podResourcesDir ?? ''],
    {
      // Upstream takes CNI_PATH from its own environment, not the request's: the stand-ins' directory.
      env: {
        PATH: process.env['PATH'] ?? '',
        CNI_PATH: node.binDirs[1] ?? '',
        MULTUS_NODE_NAME: options.nodeName,
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: port,
      },
      stdio: ['ignore', out, out],
    },
  );
  closeSync(out);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const logTail = (): string => [join(dir, 'multus-daemon.out'), logFile].map(tail).join('\n');
  try {
    await waitFor('upstream multus-daemon /healthz', async () => (await socketRequest(join(socketDir, 'multus.sock'), 'GET', '/healthz')).status === 200, {
      timeoutMs: 60_000,
      alive: () => child.exitCode === null && child.signalCode === null,
      describe: logTail,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { socketDir, cniDir, logFile, logTail, stop };
}
