import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../client.ts';
import { controlPlaneBinaries } from './binaries.ts';
import { type ClientCertificate, LocalPki } from './certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { type ManagedProcess, freePort, startProcess, waitFor } from './processes.ts';

export interface ControlPlaneOptions {
  /**
   * The Kubernetes release to run, for a test whose expectations belong to one release; by default
   * K8S_VERSION, else DEFAULT_K8S_VERSION. Its binaries must be built like the default ones.
   */
  readonly version?: string;
  /** Garbage collector, resourceclaim and service-account controllers (kube-controller-manager). */
  readonly controllerManager?: boolean;
  /** kube-scheduler with DRA allocation. */
  readonly scheduler?: boolean;
  /** Feature gates, passed to every component. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /**
   * Serve watches from etcd instead of the API server's watch cache, and never compact on the API
   * server's schedule: a resourceVersion then expires (410 Gone) only when a test calls compactEtcd().
   */
  readonly watchFromEtcd?: boolean;
  /**
   * Audit every request at level Metadata into the working directory (`ControlPlane.auditLog`): who asked
   * for what, counted at the API server rather than in a client a test could bypass.
   */
  readonly audit?: boolean;
  /**
   * Reach Services by their endpoints (--enable-aggregator-routing): admission webhooks named by a Service
   * are then called at an endpoint address with the Service's DNS name for TLS, which needs no cluster
   * network or DNS on this machine.
   */
  readonly endpointRouting?: boolean;
  /** Keep the working directory (logs, certificates) after stop, for debugging. */
  readonly keepDir?: boolean;
  /**
   * Where the components' ports come from; by default ports free a moment ago. A test of the start's
   * retry hands out a port it holds.
   */
  readonly portSource?: () => Promise<number>;
  readonly startTimeoutMs?: number;
}

export interface ControlPlane {
  /** Admin kubeconfig (group system:masters). */
  readonly kubeconfig: string;
  readonly server: string;
  /** etcd's client URL (plain HTTP on loopback), for tests that inspect or manipulate storage directly. */
  readonly etcdEndpoint: string;
  readonly adminClient: KubeClient;
  /** Working directory: certificates, kubeconfigs, etcd data, component logs. */
  readonly dir: string;
  /** A client authenticated as `user` with `groups` through a client certificate. */
  clientFor(user: string, groups?: readonly string[]): KubeClient;
  /**
   * A kubeconfig file for `user` with `groups` (client certificate), for a process of its own; `server`
   * defaults to the API server's address (pass a TcpProxy's to route its traffic through the proxy).
   */
  kubeconfigFor(user: string, options?: { readonly groups?: readonly string[]; readonly server?: string }): string;
  /** The API server's audit log; present when started with `audit: true`. */
  readonly auditLog: AuditLog | undefined;
  /** An admin client that reaches the API server at another address, e.g. through a TcpProxy. */
  adminClientAt(server: string): KubeClient;
  /** A client presenting a bearer token (e.g. a ServiceAccount token from the TokenRequest API). */
  clientWithToken(token: string): KubeClient;
  /** The running components: process ID and, for the API server, controller manager and scheduler, HTTPS port. */
  components(): { readonly name: string; readonly pid: number | undefined; readonly port: number | undefined }[];
  /** The CA that signed every serving certificate. */
  readonly caCert: string;
  /**
   * A kubelet's credentials for node `nodeName` reached at `nodeIp`: a kubeconfig with a client certificate
   * of user `system:node:<nodeName>` in group `system:nodes` (what the Node authorizer and NodeRestriction
   * judge), and a serving certificate for that address and name, which the API server verifies when it
   * calls the kubelet (logs, exec).
   */
  kubeletCredentials(nodeName: string, nodeIp: string): { readonly kubeconfig: string; readonly serving: ClientCertificate };
  /** The ClusterIP of the `kubernetes` Service; the API server's certificate names it, as in-cluster clients dial it. */
  readonly serviceIp: string;
  /** Stops and restarts kube-apiserver on the same port and storage (watch-survival tests). */
  restartApiServer(): Promise<void>;
  /** Compacts etcd at its current revision: every older resourceVersion is gone from storage. */
  compactEtcd(): Promise<void>;
  stop(): Promise<void>;
}

/** One audit event as kube-apiserver writes it at level Metadata (audit.k8s.io/v1), the fields tests read. */
export interface AuditEvent {
  readonly auditID: string;
  readonly stage: 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';
  readonly verb: string;
  readonly requestURI: string;
  readonly user: { readonly username: string; readonly groups?: readonly string[] };
  readonly userAgent?: string;
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
    readonly apiGroup?: string;
  };
  readonly responseStatus?: { readonly code?: number };
}

export interface AuditLog {
  readonly path: string;
  /** Every event written so far, in file order, every stage. */
  events(): Promise<AuditEvent[]>;
  /**
   * One event per request, in the order the API server received them: its last stage, once every
   * request received so far has been answered (a watch: once its response started).
   */
  requests(): Promise<AuditEvent[]>;
}

// Blocking mode (the default of the log backend, spelled out) writes RequestReceived before the request
// is handled, so a request whose response a client holds is already in the log.
const AUDIT_POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n';

function auditArgs(dir: string): string[] {
  writeFileSync(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  return [`--audit-policy-file=${join(dir, 'audit-policy.yaml')}`, `--audit-log-path=${join(dir, 'audit.log')}`, '--audit-log-mode=blocking'];
}

function auditLogAt(path: string, timeoutMs: number): AuditLog {
  const events = async (): Promise<AuditEvent[]> => {
    const text = await readFile(path, 'utf8').catch(() => '');
    // A line still being written has no newline yet.
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEvent);
  };
  return {
    path,
    events,
    async requests() {
      let latest = new Map<string, AuditEvent>();
      await waitFor(
        'every audited request answered',
        async () => {
          latest = new Map();
          for (const event of await events()) latest.set(event.auditID, event);
          return [...latest.values()].every((event) => event.stage !== 'RequestReceived');
        },
        { timeoutMs },
      );
      return [...latest.values()];
    },
  };
}

function featureGateArgs(featureGates: Readonly<Record<string, boolean>>): string[] {
  const gates = Object.entries(featureGates).map(([gate, on]) => `${gate}=${String(on)}`);
  return gates.length === 0 ? [] : [`--feature-gates=${gates.join(',')}`];
}

/**
 * Runs `start` on `count` ports free a moment ago. Another process may take one before the component
 * binds it (the suites run side by side); that start fails with "address already in use" in the
 * component's log, which the failure quotes, and is made again on fresh ports.
 */
async function onFreePorts<T>(count: number, start: (ports: readonly number[]) => Promise<T>, source: () => Promise<number>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const ports: number[] = [];
    for (let index = 0; index < count; index += 1) ports.push(await source());
    try {
      return await start(ports);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error && error.message.includes('address already in use'))) throw error;
    }
  }
}

/** The Service range and its first address, the `kubernetes` Service's ClusterIP. */
const SERVICE_RANGE = '10.96.0.0/24';
const SERVICE_IP = '10.96.0.1';

function apiServerArgs(
  ports: { etcd: number; api: number },
  dir: string,
  pki: LocalPki,
  serving: ClientCertificate,
  kubeletClient: ClientCertificate,
  options: ControlPlaneOptions,
): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.api}`,
    `--tls-cert-file=${serving.cert}`,
    `--tls-private-key-file=${serving.key}`,
    `--client-ca-file=${pki.caCert}`,
    // As every production cluster: kubelets are authorized by the Node authorizer, and NodeRestriction
    // keeps a node's credentials to its own Node and Pods; the node agents' node-scoped behaviour is judged by them.
    '--authorization-mode=Node,RBAC',
    `--service-account-key-file=${join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-cluster-ip-range=${SERVICE_RANGE}`,
    '--allow-privileged=true',
    // The endpoint reconciler refuses a loopback address for the kubernetes Service; nothing here needs it.
    '--endpoint-reconciler-type=none',
    '--profiling=false',
    // As in production clusters (it is on in OpenShift): setting blockOwnerDeletion on an owner reference
    // needs update permission on the owner's finalizers, which the driver deliberately lacks (§12.3).
    // ServiceAccount admission is on by default; createNamespace() provides the ServiceAccount it requires.
    '--enable-admission-plugins=OwnerReferencesPermissionEnforcement,NodeRestriction',
    // Logs, exec and port-forward dial a real kubelet at its InternalIP (its host name does not resolve
    // here), verify its serving certificate against the test CA and present a client certificate to it.
    '--kubelet-preferred-address-types=InternalIP,Hostname',
    `--kubelet-certificate-authority=${pki.caCert}`,
    `--kubelet-client-certificate=${kubeletClient.cert}`,
    `--kubelet-client-key=${kubeletClient.key}`,
    ...(options.watchFromEtcd === true ? ['--watch-cache=false', '--etcd-compaction-interval=0'] : []),
    ...(options.endpointRouting === true ? ['--enable-aggregator-routing=true'] : []),
    ...(options.audit === true ? auditArgs(dir) : []),
    ...featureGateArgs(options.featureGates ?? {}),
    '--v=1',
  ];
}

/**
 * Serving, authentication and authorization flags of kube-controller-manager and kube-scheduler: a
 * certificate from the test CA, so health checks verify TLS, and health and metrics open without
 * credentials, which is acceptable on loopback and lets tests read `kubernetes_feature_enabled`.
 */
function componentServingArgs(kubeconfig: string, serving: { cert: string; key: string }, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${serving.cert}`,
    `--tls-private-key-file=${serving.key}`,
    '--leader-elect=false',
  ];
}

/** GETs `url` trusting only `caCert`; resolves the body of a 200, rejects with the status and body otherwise. */
export function httpsGetText(url: string, caCert: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpsGet(url, { ca: readFileSync(caCert), timeout: 2_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode === 200) resolve(body);
        else reject(new Error(`GET ${url}: HTTP ${String(response.statusCode)}: ${body.slice(0, 512)}`));
      });
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url}: no answer within 2 s`)));
    request.on('error', reject);
  });
}

/**
 * Starts a real control plane on loopback: etcd and kube-apiserver (RBAC, client-certificate auth,
 * ServiceAccount token signing), optionally kube-controller-manager and kube-scheduler. Nothing is
 * shared between two control planes; `stop` leaves no process or port behind.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = controlPlaneBinaries(options.version);
  const dir = mkdtempSync(join(tmpdir(), 'sriov-dra-cp-'));
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const portSource = options.portSource ?? freePort;
  const processes: ManagedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const process of [...processes].reverse()) await process.stop();
    processes.length = 0;
  };
  try {
    const pki = new LocalPki(dir);
    // In-cluster clients (a real node's Pods) dial the `kubernetes` Service and check its name and address.
    const serving = pki.serving('kube-apiserver', [`IP:${SERVICE_IP}`, 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc']);
    const kubeletClient = pki.client('kube-apiserver-kubelet-client', ['system:masters']);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));

    // A component that did not come up is stopped and forgotten (a retry on other ports starts another).
    const supervise = async (process: ManagedProcess, ready: () => Promise<void>): Promise<void> => {
      processes.push(process);
      try {
        await ready();
      } catch (error) {
        await process.stop();
        processes.splice(processes.indexOf(process), 1);
        throw error;
      }
    };
    const etcdPorts = await onFreePorts(
      2,
      async ([client = 0, peer = 0]) => {
        const etcd = startProcess(
          'etcd',
          binaries.etcd,
          [
            // A data directory per attempt: a member's peer address is stored in it.
            `--data-dir=${join(dir, `etcd-${client}`)}`,
            '--name=default',
            `--listen-client-urls=http://127.0.0.1:${client}`,
            `--advertise-client-urls=http://127.0.0.1:${client}`,
            `--listen-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-cluster=default=http://127.0.0.1:${peer}`,
            // Test data is disposable; fsync only slows the suite down.
            '--unsafe-no-fsync',
            '--log-level=warn',
          ],
          join(dir, 'etcd.log'),
        );
        await supervise(etcd, () =>
          // Bounded: whatever else holds the port may accept and never answer.
          waitFor('etcd', async () => (await fetch(`http://127.0.0.1:${client}/health`, { signal: AbortSignal.timeout(2_000) })).ok, {
            timeoutMs,
            alive: () => etcd.child.exitCode === null,
            describe: () => tail(etcd.logFile),
          }),
        );
        return { client };
      },
      portSource,
    );

    const admin = pki.client('sriov-dra-admin', ['system:masters']);
    const waitForApiServer = (client: KubeClient, process: ManagedProcess): Promise<void> =>
      waitFor('kube-apiserver', async () => await client.request({ method: 'GET', path: '/readyz', timeoutMs: 2_000 }).then(() => true), {
        timeoutMs,
        alive: () => process.child.exitCode === null,
        describe: () => tail(process.logFile),
      });
    const started = await onFreePorts(
      1,
      async ([api = 0]) => {
        const ports = { etcd: etcdPorts.client, api };
        const args = apiServerArgs(ports, dir, pki, serving, kubeletClient, options);
        const process = startProcess('kube-apiserver', binaries.kubeApiserver, args, join(dir, 'kube-apiserver.log'));
        const url = `https://127.0.0.1:${api}`;
        const client = KubeClient.fromKubeConfig(writeKubeconfig(join(dir, 'admin.kubeconfig'), url, pki.caCert, 'sriov-dra-admin', admin), {
          qps: 1_000,
          burst: 1_000,
        });
        try {
          await supervise(process, () => waitForApiServer(client, process));
        } catch (error) {
          client.close();
          throw error;
        }
        return { ports, args, server: url, adminClient: client, apiServer: process };
      },
      portSource,
    );
    const { ports, args: apiArgs, server, adminClient } = started;
    let apiServer = started.apiServer;
    const kubeconfig = join(dir, 'admin.kubeconfig');
    const component = (name: string, user: string): string => {
      const cert = pki.client(user);
      return writeKubeconfig(join(dir, `${name}.kubeconfig`), server, pki.caCert, user, cert);
    };
    // Each component is started and then health-checked before the next, so a test never races a
    // controller manager or scheduler that is still starting (or has already failed).
    const componentPorts = new Map<string, number>([['kube-apiserver', ports.api]]);
    const startComponent = async (name: string, binary: string, user: string, healthPath: string, args: readonly string[]): Promise<void> => {
      await onFreePorts(
        1,
        async ([port = 0]) => {
          const managed = startProcess(
            name,
            binary,
            [...componentServingArgs(component(name, user), pki.serving(name), port), ...args, ...featureGateArgs(options.featureGates ?? {}), '--v=1'],
            join(dir, `${name}.log`),
          );
          await supervise(managed, () =>
            waitFor(name, async () => (await httpsGetText(`https://127.0.0.1:${port}${healthPath}`, pki.caCert)) === 'ok', {
              timeoutMs,
              alive: () => managed.child.exitCode === null,
              describe: () => tail(managed.logFile),
            }),
          );
          componentPorts.set(name, port);
        },
        portSource,
      );
    };
    if (options.controllerManager === true) {
      await startComponent('kube-controller-manager', binaries.kubeControllerManager, 'system:kube-controller-manager', '/healthz', [
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${join(dir, 'sa.key')}`,
        `--root-ca-file=${pki.caCert}`,
        '--controllers=*',
      ]);
    }
    if (options.scheduler === true) {
      await startComponent('kube-scheduler', binaries.kubeScheduler, 'system:kube-scheduler', '/readyz', []);
    }

    const clients: KubeClient[] = [adminClient];
    let tokenClients = 0;
    const track = (client: KubeClient): KubeClient => {
      clients.push(client);
      return client;
    };
    return {
      kubeconfig,
      server,
      etcdEndpoint: `http://127.0.0.1:${ports.etcd}`,
      adminClient,
      caCert: pki.caCert,
      dir,
      auditLog: options.audit === true ? auditLogAt(join(dir, 'audit.log'), timeoutMs) : undefined,
      kubeconfigFor(user, { groups = [], server: address = server } = {}) {
        const file = `${user.replaceAll(':', '-')}-${new URL(address).port}.kubeconfig`;
        return writeKubeconfig(join(dir, file), address, pki.caCert, user, pki.client(user, groups));
      },
      clientFor(user, groups = []) {
        const cert = pki.client(user, groups);
        return track(
          KubeClient.fromKubeConfig(writeKubeconfig(join(dir, `${user.replaceAll(':', '-')}.kubeconfig`), server, pki.caCert, user, cert), {
            qps: 1_000,
            burst: 1_000,
          }),
        );
      },
      adminClientAt(address) {
        return track(
          KubeClient.fromKubeConfig(writeKubeconfig(join(dir, `admin-${new URL(address).port}.kubeconfig`), address, pki.caCert, 'sriov-dra-admin', admin), {
            qps: 1_000,
            burst: 1_000,
          }),
        );
      },
      clientWithToken(token) {
        tokenClients += 1;
        const path = writeKubeconfig(join(dir, `token-${tokenClients}.kubeconfig`), server, pki.caCert, 'token-user', { token });
        return track(KubeClient.fromKubeConfig(path, { qps: 1_000, burst: 1_000 }));
      },
      serviceIp: SERVICE_IP,
      kubeletCredentials(nodeName, nodeIp) {
        const user = `system:node:${nodeName}`;
        const client = pki.client(user, ['system:nodes']);
        const kubeconfig = writeKubeconfig(join(dir, `kubelet-${nodeName}.kubeconfig`), server, pki.caCert, user, client);
        return { kubeconfig, serving: pki.serving(`kubelet-${nodeName}`, [`IP:${nodeIp}`, `DNS:${nodeName}`]) };
      },
      components() {
        return processes.map((process) => ({ name: process.name, pid: process.child.pid, port: componentPorts.get(process.name) }));
      },
      async compactEtcd() {
        await compactEtcd(`http://127.0.0.1:${ports.etcd}`);
      },
      async restartApiServer() {
        const previous = apiServer;
        await previous.stop();
        apiServer = startProcess('kube-apiserver', binaries.kubeApiserver, apiArgs, join(dir, 'kube-apiserver.log'));
        processes[processes.indexOf(previous)] = apiServer;
        await waitForApiServer(adminClient, apiServer);
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

/** Compacts etcd to its current revision through its HTTP gateway. */
async function compactEtcd(endpoint: string): Promise<void> {
  const range = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) });
  const status = (await range.json()) as { header?: { revision?: string } };
  const revision = status.header?.revision;
  if (!range.ok || revision === undefined) throw new Error(`etcd did not report its revision: HTTP ${range.status}`);
  const response = await fetch(`${endpoint}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  if (!response.ok) throw new Error(`etcd compaction at revision ${revision} failed: HTTP ${response.status} ${await response.text()}`);
}

function tail(file: string): string {
  try {
    return `Last log lines of ${file}:\n${readFileSync(file, 'utf8').split('\n').slice(-20).join('\n')}`;
  } catch {
    return '';
  }
}
