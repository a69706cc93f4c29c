import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SriovDraError } from '@sriov-dra/contract';
import { errorMessage } from './api-errors.ts';
import { type ClientConfig, serverUrl } from './client-config.ts';
import { FileToken } from './credentials.ts';

/** Where the kubelet mounts a Pod's service-account token, CA bundle and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly serviceAccountDir?: string;
  /** Clock for token re-reads (epoch milliseconds). */
  readonly now?: () => number;
}

/**
 * The Pod's own service account, as client-go's rest.InClusterConfig: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the mounted CA, and the mounted token re-read as the kubelet rotates it.
 */
export function inClusterConfig(options: InClusterOptions = {}): ClientConfig {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const origin = 'in-cluster service account';
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (host === undefined || host === '' || port === undefined || port === '')
    throw new SriovDraError('InvalidKubeconfig', `${origin}: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not running in a Pod?)`);
  let ca: Buffer;
  try {
    ca = readFileSync(join(dir, 'ca.crt'));
  } catch (error) {
    throw new SriovDraError('InvalidKubeconfig', `${origin}: ${join(dir, 'ca.crt')} cannot be read: ${errorMessage(error)}`, { cause: error });
  }
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    // Mounted with every service-account volume, but only a default: callers name their namespaces.
  }
  return {
    origin,
    context: 'in-cluster',
    clusterName: 'in-cluster',
    userName: 'service-account',
    server: serverUrl(`https://${host.includes(':') ? `[${host}]` : host}:${port}`, origin),
    namespace,
    tls: { ca, rejectUnauthorized: true },
    credentials: new FileToken(join(dir, 'token'), origin, options.now ?? Date.now),
  };
}
