// The cluster the stack runs against: by default a control plane it starts on loopback and throws away,
// or, with SRIOV_DRA_E2E_TARGET=kubeconfig, the cluster $KUBECONFIG names, which it must leave as it
// found it. Either way the stack asks the cluster for nothing but what any cluster grants its admin:
// ServiceAccount tokens from the TokenRequest API for every process it starts, so no CA key is needed.
import fs from 'node:fs';
import { isIP } from 'node:net';
import path, { delimiter } from 'node:path';
import { KubeClient, defaultKubeconfigFiles, loadKubeconfig, resourceTypes } from '@sriov-dra/k8s';
import { type AuditLog, type ControlPlane, serviceAccountToken, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';

export type ClusterTarget = { readonly kind: 'local'; readonly audit?: boolean } | { readonly kind: 'kubeconfig'; readonly files: readonly string[] };

/** The target SRIOV_DRA_E2E_TARGET names: `local` (the default) or `kubeconfig` ($KUBECONFIG, else ~/.kube/config). */
export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): ClusterTarget {
  const target = env['SRIOV_DRA_E2E_TARGET'] ?? 'local';
  if (target === 'local') return { kind: 'local' };
  if (target !== 'kubeconfig') throw new Error(`SRIOV_DRA_E2E_TARGET=${target}: expected local or kubeconfig`);
  const files = defaultKubeconfigFiles(env);
  if (files.length === 0) throw new Error('SRIOV_DRA_E2E_TARGET=kubeconfig: set KUBECONFIG to the kubeconfig of the cluster to test against');
  return { kind: 'kubeconfig', files };
}

/** Whether the tests run against the local control plane: some need its audit log or its reach into this machine. */
export function targetsLocalControlPlane(env: NodeJS.ProcessEnv = process.env): boolean {
  return targetFromEnv(env).kind === 'local';
}

export interface Cluster {
  readonly target: ClusterTarget['kind'];
  readonly admin: KubeClient;
  /** The admin's kubeconfig file(s), ':'-separated as KUBECONFIG takes them. */
  readonly adminKubeconfig: string;
  /** The API server's URL, what a proxy in front of it forwards to. */
  readonly server: string;
  /** A file with the CA that verifies the API server (absent: the system's roots). */
  readonly caFile: string | undefined;
  /** The control plane the stack started; undefined for a cluster of someone else's. */
  readonly controlPlane: ControlPlane | undefined;
  readonly auditLog: AuditLog | undefined;
  /**
   * A kubeconfig file presenting `token` as `user`; `server` (a proxy's address) instead of the API
   * server's keeps the API server's name for TLS; `namespace` is its context's.
   */
  tokenKubeconfig(file: string, user: string, token: string, options?: { readonly server?: string; readonly namespace?: string }): string;
  /** A client presenting `token`. */
  clientWithToken(token: string): KubeClient;
  /** Stops the control plane the stack started; a target cluster stays up. */
  stop(): Promise<void>;
}

interface Access {
  readonly server: string;
  readonly caFile: string | undefined;
  readonly servername: string | undefined;
  readonly insecure: boolean;
}

function clusterOf(
  target: ClusterTarget['kind'],
  admin: KubeClient,
  adminKubeconfig: string,
  access: Access,
  dir: string,
  local: ControlPlane | undefined,
): Cluster {
  const clients: KubeClient[] = [];
  const tokenKubeconfig: Cluster['tokenKubeconfig'] = (file, user, token, options = {}) => {
    const server = options.server ?? access.server;
    // Through a proxy on 127.0.0.1 the certificate must still be checked against the API server's own name.
    const hostname = new URL(access.server).hostname;
    const servername = access.servername ?? (server !== access.server && isIP(hostname) === 0 ? hostname : undefined);
    const cluster = {
      server,
      ...(access.caFile === undefined ? {} : { 'certificate-authority': access.caFile }),
      ...(servername === undefined ? {} : { 'tls-server-name': servername }),
      ...(access.insecure ? { 'insecure-skip-tls-verify': true } : {}),
    };
    fs.writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'target', cluster }],
        users: [{ name: user, user: { token } }],
        contexts: [{ name: 'target', context: { cluster: 'target', user, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) } }],
        'current-context': 'target',
      }),
      { mode: 0o600 },
    );
    return file;
  };
  let tokenClients = 0;
  return {
    target,
    admin,
    adminKubeconfig,
    server: access.server,
    caFile: access.caFile,
    controlPlane: local,
    auditLog: local?.auditLog,
    tokenKubeconfig,
    clientWithToken(token) {
      tokenClients += 1;
      const client = KubeClient.fromKubeConfig(tokenKubeconfig(path.join(dir, `token-${String(tokenClients)}.kubeconfig`), 'token-user', token), {
        qps: 100,
        burst: 200,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.close();
      if (local !== undefined) await local.stop();
      else admin.close();
    },
  };
}

/**
 * Starts the cluster the target names, writing what it needs under `dir`. A local control plane routes
 * Services to their endpoints (the webhook is reached on this machine) and audits when asked.
 */
export async function openCluster(target: ClusterTarget, dir: string): Promise<Cluster> {
  if (target.kind === 'local') {
    const cp = await startControlPlane({ controllerManager: true, scheduler: true, endpointRouting: true, ...(target.audit === true ? { audit: true } : {}) });
    return clusterOf('local', cp.adminClient, cp.kubeconfig, { server: cp.server, caFile: cp.caCert, servername: undefined, insecure: false }, dir, cp);
  }
  const config = loadKubeconfig(target.files);
  let caFile: string | undefined;
  if (config.tls.ca !== undefined) {
    caFile = path.join(dir, 'target-ca.crt');
    fs.writeFileSync(caFile, config.tls.ca);
  }
  const admin = new KubeClient(config, { qps: 100, burst: 200 });
  const access = { server: config.server.toString().replace(/\/$/, ''), caFile, servername: config.tls.servername, insecure: !config.tls.rejectUnauthorized };
  return clusterOf('kubeconfig', admin, target.files.join(delimiter), access, dir, undefined);
}

/** The username a ServiceAccount's token authenticates as. */
export function serviceAccountUser(account: { readonly namespace: string; readonly name: string }): string {
  return `system:serviceaccount:${account.namespace}:${account.name}`;
}

/** An agent's identity: a ServiceAccount token, its username, and the binding that grants it. */
export interface Agent {
  readonly user: string;
  readonly token: string;
  readonly client: KubeClient;
  readonly binding: string;
}

/**
 * One of the node's simulated agents (the kubelet, the GPU driver, Whereabouts): a ServiceAccount of its
 * own in `namespace`, bound to cluster-admin as a node agent's broad grants would be, so that the audit
 * log tells its requests apart and a target cluster needs no client certificate. Resolves once the
 * binding authorizes it (the authorizer follows new bindings within moments).
 */
export async function createAgent(cluster: Cluster, namespace: string, name: string): Promise<Agent> {
  const binding = `${namespace}:${name}`;
  await cluster.admin.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }, { namespace });
  await cluster.admin.create(resourceTypes.clusterRoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: binding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  // A run takes minutes; a day leaves room for a slow cluster.
  const token = await serviceAccountToken(cluster.admin, { namespace, name }, { expirationSeconds: 86_400 });
  const client = cluster.clientWithToken(token);
  await waitFor(
    `${binding} to authorize its agent`,
    () =>
      client.list(resourceTypes.node, { limit: 1 }).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 30_000 },
  );
  return { user: serviceAccountUser({ namespace, name }), token, client, binding };
}
