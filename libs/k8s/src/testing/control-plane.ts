import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../client.ts';
import { controlPlaneBinaries } from './binaries.ts';
import { LocalPki } from './certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { type ManagedProcess, freePort, startProcess, waitFor } from './processes.ts';

export interface ControlPlaneOptions {
  /** Garbage collector, resourceclaim and service-account controllers (kube-controller-manager). */
  readonly controllerManager?: boolean;
  /** kube-scheduler with DRA allocation. */
  readonly scheduler?: boolean;
  /** Extra kube-apiserver feature gates. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** Keep the working directory (logs, certificates) after stop, for debugging. */
  readonly keepDir?: boolean;
  readonly startTimeoutMs?: number;
}

export interface ControlPlane {
  /** Admin kubeconfig (group system:masters). */
  readonly kubeconfig: string;
  readonly server: string;
  /** etcd's client URL, for tests that manipulate storage directly (e.g. compaction). */
  readonly etcdEndpoint: string;
  readonly adminClient: KubeClient;
  /** Working directory: certificates, kubeconfigs, etcd data, component logs. */
  readonly dir: string;
  /** A client authenticated as `user` with `groups` through a client certificate. */
  clientFor(user: string, groups?: readonly string[]): KubeClient;
  /** A client presenting a bearer token (e.g. a ServiceAccount token from the TokenRequest API). */
  clientWithToken(token: string): KubeClient;
  /** Process IDs of the running components, by name. */
  components(): { readonly name: string; readonly pid: number | undefined }[];
  /** Stops and restarts kube-apiserver on the same port and storage (watch-survival tests). */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

function apiServerArgs(
  ports: { etcd: number; api: number },
  dir: string,
  pki: LocalPki,
  serving: { cert: string; key: string },
  featureGates: Readonly<Record<string, boolean>>,
): string[] {
  const gates = Object.entries(featureGates).map(([gate, on]) => `${gate}=${String(on)}`);
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.api}`,
    `--tls-cert-file=${serving.cert}`,
    `--tls-private-key-file=${serving.key}`,
    `--client-ca-file=${pki.caCert}`,
    '--authorization-mode=RBAC',
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/24',
    '--allow-privileged=true',
    // The endpoint reconciler refuses a loopback address for the kubernetes Service; nothing here needs it.
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    // The ServiceAccount admission plugin rejects Pods until the controller manager has created the
    // namespace's default ServiceAccount, a race every test would have to wait out; test Pods never run,
    // so nothing depends on its token mounting.
    '--disable-admission-plugins=ServiceAccount',
    ...(gates.length === 0 ? [] : [`--feature-gates=${gates.join(',')}`]),
    '--v=1',
  ];
}

/**
 * Starts a real control plane on loopback: etcd and kube-apiserver (RBAC, client-certificate auth,
 * ServiceAccount token signing), optionally kube-controller-manager and kube-scheduler. Nothing is
 * shared between two control planes; `stop` leaves no process or port behind.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = controlPlaneBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'sriov-dra-cp-'));
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const processes: ManagedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const process of [...processes].reverse()) await process.stop();
    processes.length = 0;
  };
  try {
    const pki = new LocalPki(dir);
    const serving = pki.serving('kube-apiserver');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));

    const ports = { etcd: await freePort(), peer: await freePort(), api: await freePort() };
    const server = `https://127.0.0.1:${ports.api}`;
    const etcd = startProcess(
      'etcd',
      binaries.etcd,
      [
        `--data-dir=${join(dir, 'etcd')}`,
        '--name=default',
        `--listen-client-urls=http://127.0.0.1:${ports.etcd}`,
        `--advertise-client-urls=http://127.0.0.1:${ports.etcd}`,
        `--listen-peer-urls=http://127.0.0.1:${ports.peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${ports.peer}`,
        `--initial-cluster=default=http://127.0.0.1:${ports.peer}`,
        // Test data is disposable; fsync only slows the suite down.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    processes.push(etcd);
    await waitFor('etcd', async () => (await fetch(`http://127.0.0.1:${ports.etcd}/health`)).ok, {
      timeoutMs,
      alive: () => etcd.child.exitCode === null,
      describe: () => tail(etcd.logFile),
    });

    const apiArgs = apiServerArgs(ports, dir, pki, serving, options.featureGates ?? {});
    let apiServer = startProcess('kube-apiserver', binaries.kubeApiserver, apiArgs, join(dir, 'kube-apiserver.log'));
    processes.push(apiServer);
    const admin = pki.client('sriov-dra-admin', ['system:masters']);
    const kubeconfig = writeKubeconfig(join(dir, 'admin.kubeconfig'), server, pki.caCert, 'sriov-dra-admin', admin);
    const adminClient = KubeClient.fromKubeConfig(kubeconfig, { qps: 1_000, burst: 1_000 });
    const waitForApiServer = (): Promise<void> =>
      waitFor('kube-apiserver', async () => await adminClient.request({ method: 'GET', path: '/readyz', timeoutMs: 2_000 }).then(() => true), {
        timeoutMs,
        alive: () => apiServer.child.exitCode === null,
        describe: () => tail(apiServer.logFile),
      });
    await waitForApiServer();

    const component = (name: string, user: string): string => {
      const cert = pki.client(user);
      return writeKubeconfig(join(dir, `${name}.kubeconfig`), server, pki.caCert, user, cert);
    };
    if (options.controllerManager === true) {
      processes.push(
        startProcess(
          'kube-controller-manager',
          binaries.kubeControllerManager,
          [
            `--kubeconfig=${component('kube-controller-manager', 'system:kube-controller-manager')}`,
            '--leader-elect=false',
            '--use-service-account-credentials=true',
            `--service-account-private-key-file=${join(dir, 'sa.key')}`,
            `--root-ca-file=${pki.caCert}`,
            '--secure-port=0',
            '--controllers=*',
            '--v=1',
          ],
          join(dir, 'kube-controller-manager.log'),
        ),
      );
    }
    if (options.scheduler === true) {
      processes.push(
        startProcess(
          'kube-scheduler',
          binaries.kubeScheduler,
          [
            `--kubeconfig=${component('kube-scheduler', 'system:kube-scheduler')}`,
            `--authentication-kubeconfig=${join(dir, 'kube-scheduler.kubeconfig')}`,
            `--authorization-kubeconfig=${join(dir, 'kube-scheduler.kubeconfig')}`,
            '--leader-elect=false',
            '--bind-address=127.0.0.1',
            `--secure-port=${await freePort()}`,
            '--v=1',
          ],
          join(dir, 'kube-scheduler.log'),
        ),
      );
    }

    const clients: KubeClient[] = [adminClient];
    const track = (client: KubeClient): KubeClient => {
      clients.push(client);
      return client;
    };
    return {
      kubeconfig,
      server,
      etcdEndpoint: `http://127.0.0.1:${ports.etcd}`,
      adminClient,
      dir,
      clientFor(user, groups = []) {
        const cert = pki.client(user, groups);
        return track(
          KubeClient.fromKubeConfig(writeKubeconfig(join(dir, `${user.replaceAll(':', '-')}.kubeconfig`), server, pki.caCert, user, cert), {
            qps: 1_000,
            burst: 1_000,
          }),
        );
      },
      clientWithToken(token) {
        const config = new KubeConfig();
        config.loadFromOptions({
          clusters: [{ name: 'c', server, caFile: pki.caCert, skipTLSVerify: false }],
          users: [{ name: 'u', token }],
          contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
          currentContext: 'c',
        });
        return track(KubeClient.fromConfig(config, { qps: 1_000, burst: 1_000 }));
      },
      components() {
        return processes.map((process) => ({ name: process.name, pid: process.child.pid }));
      },
      async restartApiServer() {
        const previous = apiServer;
        await previous.stop();
        apiServer = startProcess('kube-apiserver', binaries.kubeApiserver, apiArgs, join(dir, 'kube-apiserver.log'));
        processes[processes.indexOf(previous)] = apiServer;
        await waitForApiServer();
      },
      async stop() {
        for (const client of clients) client.close();
        await stopAll();
        if (options.keepDir !== true) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function tail(file: string): string {
  try {
    return `Last log lines of ${file}:\n${readFileSync(file, 'utf8').split('\n').slice(-20).join('\n')}`;
  } catch {
    return '';
  }
}
