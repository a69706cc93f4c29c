import { SriovDraError } from '@sriov-dra/contract';
import type { Credentials } from './credentials.ts';

/** TLS settings of the connection to the API server, in node:tls terms. */
export interface TlsSettings {
  /** Trusted roots (PEM); the system's when absent. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** False only for insecure-skip-tls-verify. */
  readonly rejectUnauthorized: boolean;
  /** tls-server-name: the name checked against the serving certificate instead of the URL's host. */
  readonly servername?: string;
}

/**
 * Whom requests act as instead of the authenticated user (kubeconfig `as`, `as-uid`, `as-groups`,
 * `as-user-extra`; kubectl's --as and --as-group): sent as Impersonate-* headers, which the API server
 * honours only for a user allowed to impersonate.
 */
export interface Impersonation {
  readonly user: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** Everything a request needs to reach and authenticate to one API server, resolved once at startup. */
export interface ClientConfig {
  /** Where the settings came from, for messages: `kubeconfig <paths>` or `in-cluster service account`. */
  readonly origin: string;
  readonly context: string;
  readonly clusterName: string;
  readonly userName: string;
  readonly server: URL;
  /** The context's namespace (in a Pod: the Pod's own). */
  readonly namespace: string | undefined;
  readonly tls: TlsSettings;
  /** Absent for an anonymous user, or one known only by its client certificate. */
  readonly credentials: Credentials | undefined;
  /** The cluster's proxy-url: an HTTP(S) proxy that tunnels to the server with CONNECT. */
  readonly proxy?: URL;
  readonly impersonate?: Impersonation | undefined;
}

/** The API server's base URL; requests are made below its path (a proxy may serve the API under one). */
export function serverUrl(server: string, owner: string): URL {
  let url: URL;
  try {
    url = new URL(server);
  } catch (error) {
    throw new SriovDraError('InvalidKubeconfig', `${owner} has no valid server URL (${JSON.stringify(server)})`, { cause: error });
  }
  if (url.protocol !== 'https:') throw new SriovDraError('InvalidKubeconfig', `${owner}: server ${server} is not https`);
  return url;
}

/**
 * The cluster's proxy-url. Only HTTP and HTTPS proxies are implemented (a CONNECT tunnel); kubectl also
 * speaks SOCKS5, which is refused by name rather than bypassed.
 */
export function proxyUrl(proxy: string, owner: string): URL {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch (error) {
    throw new SriovDraError('InvalidKubeconfig', `${owner} has no valid proxy-url (${JSON.stringify(proxy)})`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SriovDraError('InvalidKubeconfig', `${owner}: proxy-url ${proxy} is not an http or https proxy`, {
      remedy: 'use an HTTP CONNECT proxy (http:// or https://), or reach the server without proxy-url',
    });
  return url;
}
