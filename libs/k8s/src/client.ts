import { Agent, type RequestOptions, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { type ObjectRef, SriovDraError } from '@sriov-dra/contract';
import { type ApiRequestInfo, type ApiStatus, KubeApiError, classifyStatus, classifyTransportError } from './api-errors.ts';
import type { ClientConfig, Impersonation } from './client-config.ts';
import type { AuthMaterial } from './credentials.ts';
import { inClusterConfig } from './in-cluster.ts';
import { defaultKubeconfigFiles, loadKubeconfig } from './kubeconfig.ts';
import { TokenBucket } from './rate-limiter.ts';
import { type ObjectLocation, type ResourceType, resourcePath } from './resources.ts';

export const contentTypes = {
  json: 'application/json',
  jsonPatch: 'application/json-patch+json',
  mergePatch: 'application/merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface KubeClientOptions {
  /** Sustained requests per second (client-go default 5). */
  readonly qps?: number;
  /** Requests allowed at once above the sustained rate (client-go default 10). */
  readonly burst?: number;
  /** Per-request deadline when the caller gives none. */
  readonly requestTimeoutMs?: number;
  readonly userAgent?: string;
  /**
   * Proxy settings from an environment (HTTPS_PROXY, NO_PROXY and their lower-case forms), used when the
   * connection names no proxy itself, as kubectl uses its environment's.
   */
  readonly proxyEnv?: Readonly<Record<string, string | undefined>>;
}

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** The object the request is about, named in errors. */
  readonly object?: ObjectRef;
}

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly object: KubeObject;
}

/** The part of every API object the library relies on; everything else is carried through untouched. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid: string;
    readonly resourceVersion: string;
    readonly generation?: number;
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly Readonly<Record<string, unknown>>[];
  };
  readonly [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  readonly metadata: { readonly resourceVersion: string; readonly continue?: string };
  readonly items: T[];
}

function queryString(query: ApiRequest['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Decodes a JSON body; a body that is not JSON is a typed error, not a SyntaxError. */
function parseJson(text: string, info: ApiRequestInfo): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SriovDraError('MalformedApiResponse', `${info.method} ${info.path}: ${text.slice(0, 128)}`, { object: info.object, cause: error });
  }
}

function objectRef(type: ResourceType, at: ObjectLocation): ObjectRef {
  return { kind: type.kind, namespace: at.namespace, name: at.name };
}

function parseStatus(text: string): ApiStatus | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return text === '' ? undefined : { message: text.slice(0, 512) };
  }
}

/**
 * A small typed REST client over node:https. Objects stay plain JSON (nothing is dropped by model
 * classes), failures are typed (KubeApiError, MalformedApiResponse), and every request passes the
 * QPS/burst limiter and a deadline.
 * The connection settings come resolved from kubeconfig.ts or in-cluster.ts; a 401 makes rotating
 * credentials (token files, exec plugins) refresh, and the request is sent once more.
 */
export class KubeClient {
  private readonly limiter: TokenBucket;
  private readonly agent: Agent;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  readonly config: ClientConfig;

  constructor(config: ClientConfig, options: KubeClientOptions = {}) {
    this.config = config;
    // Node's agent tunnels through an HTTP(S) proxy with CONNECT; the TLS session to the server (its CA,
    // client certificate, server name) runs inside the tunnel as without a proxy.
    const proxyEnv = config.proxy === undefined ? options.proxyEnv : { HTTPS_PROXY: config.proxy.href };
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, ...(proxyEnv === undefined ? {} : { proxyEnv }) });
    this.limiter = new TokenBucket(options.qps ?? 5, options.burst ?? 10);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'sriov-dra';
  }

  /**
   * From a kubeconfig file (its current-context), or the default chain: $KUBECONFIG (':'-separated files,
   * merged as kubectl merges them), ~/.kube/config, in-cluster.
   */
  static fromKubeConfig(path: string | undefined, options: KubeClientOptions = {}): KubeClient {
    const files = path === undefined ? defaultKubeconfigFiles() : [path];
    return new KubeClient(files.length === 0 ? inClusterConfig() : loadKubeconfig(files), options);
  }

  /** The Pod's service account: token re-read as it rotates. */
  static inCluster(options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(inClusterConfig(), options);
  }

  /** The same connection with other credentials or limits, e.g. for impersonation in tests. */
  static fromConfig(config: ClientConfig, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(config, options);
  }

  close(): void {
    this.agent.destroy();
  }

  private async open(req: ApiRequest, signal: AbortSignal): Promise<{ response: IncomingMessage; info: ApiRequestInfo }> {
    const { server, credentials } = this.config;
    // Below the server URL's path: an API served behind a proxy prefix keeps its prefix.
    const url = new URL(`${server.pathname.replace(/\/$/, '')}${req.path}${queryString(req.query)}`, server);
    const info: ApiRequestInfo = { method: req.method, path: url.pathname, object: req.object };
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    let response = await this.send(req, url, body, info, signal);
    // Rejected credentials: a rotated token file or a fresh exec credential may be accepted; once.
    if (response.statusCode === 401 && credentials?.refresh() === true) {
      response.resume();
      response = await this.send(req, url, body, info, signal);
    }
    return { response, info };
  }

  private async send(req: ApiRequest, url: URL, body: string | undefined, info: ApiRequestInfo, signal: AbortSignal): Promise<IncomingMessage> {
    const { tls, credentials } = this.config;
    const auth = (await credentials?.current()) ?? {};
    // The TLS material rides on each request's options; the keep-alive agent pools connections by it.
    const options: RequestOptions = {
      method: req.method,
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      signal,
      agent: this.agent,
      ca: tls.ca,
      cert: auth.cert ?? tls.cert,
      key: auth.key ?? tls.key,
      rejectUnauthorized: tls.rejectUnauthorized,
      servername: tls.servername,
      headers: {
        Accept: contentTypes.json,
        'User-Agent': this.userAgent,
        ...authorization(auth),
        ...impersonationHeaders(this.config.impersonate),
        ...(body === undefined ? {} : { 'Content-Type': req.contentType ?? contentTypes.json, 'Content-Length': Buffer.byteLength(body) }),
      },
    };
    await this.limiter.acquire(signal);
    let sent = false;
    try {
      return await new Promise<IncomingMessage>((resolve, reject) => {
        const request = httpsRequest(options, resolve);
        request.on('error', reject);
        request.end(body, () => {
          sent = true;
        });
      });
    } catch (error) {
      throw classifyTransportError(error, info, sent);
    }
  }

  /** One request; resolves to the decoded JSON body (undefined when empty). */
  async request(req: ApiRequest): Promise<unknown> {
    const signal = AbortSignal.any([AbortSignal.timeout(req.timeoutMs ?? this.requestTimeoutMs), ...(req.signal === undefined ? [] : [req.signal])]);
    const { response, info } = await this.open(req, signal);
    let text: string;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      throw classifyTransportError(error, info, true);
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      if (text === '') return undefined;
      // Health endpoints answer in plain text; API objects in JSON.
      return (response.headers['content-type'] ?? '').includes('json') ? parseJson(text, info) : text;
    }
    const apiStatus = parseStatus(text);
    throw new KubeApiError(classifyStatus(status, apiStatus), status, info, apiStatus);
  }

  async get<T extends KubeObject = KubeObject>(type: ResourceType, at: ObjectLocation & { name: string }, signal?: AbortSignal): Promise<T> {
    return (await this.request({ method: 'GET', path: resourcePath(type, at), signal, object: objectRef(type, at) })) as T;
  }

  async list<T extends KubeObject = KubeObject>(
    type: ResourceType,
    options: {
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
      limit?: number;
      continue?: string;
      resourceVersion?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<KubeList<T>> {
    const { namespace, signal, ...query } = options;
    const request = { method: 'GET', path: resourcePath(type, { namespace }), query, signal, object: objectRef(type, { namespace }) } as const;
    const list = await this.request(request);
    checkList(list, request);
    return list as KubeList<T>;
  }

  /**
   * Every item, read page by page (`limit` a page, 500 by default) and following each continue token. Without
   * a resourceVersion each page is read from the API server's current state, as one LIST would be.
   */
  async listAll<T extends KubeObject = KubeObject>(
    type: ResourceType,
    options: { namespace?: string; labelSelector?: string; fieldSelector?: string; limit?: number; signal?: AbortSignal } = {},
  ): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const page = await this.list<T>(type, { limit: 500, ...options, ...(token === undefined ? {} : { continue: token }) });
      items.push(...page.items);
      token = page.metadata.continue === '' ? undefined : page.metadata.continue;
    } while (token !== undefined);
    return items;
  }

  /** Creates with strict field validation: unknown or duplicate fields are rejected, not pruned. */
  async create<T extends KubeObject = KubeObject>(
    type: ResourceType,
    body: Record<string, unknown>,
    options: { namespace?: string; signal?: AbortSignal; fieldManager?: string } = {},
  ): Promise<T> {
    return (await this.request({
      method: 'POST',
      path: resourcePath(type, { namespace: options.namespace }),
      query: { fieldValidation: 'Strict', fieldManager: options.fieldManager },
      body,
      signal: options.signal,
      object: objectRef(type, { namespace: options.namespace, name: createdName(body) }),
    })) as T;
  }

  async patch<T extends KubeObject = KubeObject>(
    type: ResourceType,
    at: ObjectLocation & { name: string },
    body: unknown,
    contentType: string,
    options: { signal?: AbortSignal; fieldManager?: string; force?: boolean } = {},
  ): Promise<T> {
    return (await this.request({
      method: 'PATCH',
      path: resourcePath(type, at),
      query: { fieldValidation: 'Strict', fieldManager: options.fieldManager, force: options.force },
      body,
      contentType,
      signal: options.signal,
      object: objectRef(type, at),
    })) as T;
  }

  /** Deletes with optional UID/resourceVersion preconditions and propagation policy. */
  async delete(
    type: ResourceType,
    at: ObjectLocation & { name: string },
    options: {
      uid?: string;
      resourceVersion?: string;
      propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
      gracePeriodSeconds?: number;
      signal?: AbortSignal;
    } = {},
  ): Promise<unknown> {
    const preconditions =
      options.uid === undefined && options.resourceVersion === undefined ? undefined : { uid: options.uid, resourceVersion: options.resourceVersion };
    return this.request({
      method: 'DELETE',
      path: resourcePath(type, at),
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions,
        propagationPolicy: options.propagationPolicy,
        gracePeriodSeconds: options.gracePeriodSeconds,
      },
      signal: options.signal,
      object: objectRef(type, at),
    });
  }

  /**
   * Opens a watch stream and yields its events until the server closes it, the signal aborts, or the
   * server reports an error (thrown as KubeApiError; 410 Gone when the resourceVersion expired).
   */
  async *watch(
    type: ResourceType,
    options: { namespace?: string; resourceVersion: string; labelSelector?: string; timeoutSeconds?: number; signal: AbortSignal },
  ): AsyncGenerator<WatchEvent> {
    const { namespace, signal, ...query } = options;
    const { response, info } = await this.open(
      {
        method: 'GET',
        path: resourcePath(type, { namespace }),
        query: { ...query, watch: true, allowWatchBookmarks: true },
        object: objectRef(type, { namespace }),
      },
      signal,
    );
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const apiStatus = parseStatus(Buffer.concat(chunks).toString('utf8'));
      throw new KubeApiError(classifyStatus(status, apiStatus), status, info, apiStatus);
    }
    let pending = '';
    try {
      for await (const chunk of response) {
        pending += (chunk as Buffer).toString('utf8');
        let newline = pending.indexOf('\n');
        while (newline >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          newline = pending.indexOf('\n');
          if (line === '') continue;
          const event = watchEvent(parseJson(line, info), info);
          if (event.type === 'ERROR') {
            const apiStatus = event.object as ApiStatus;
            const code = apiStatus.code ?? 500;
            throw new KubeApiError(classifyStatus(code, apiStatus), code, info, apiStatus);
          }
          yield event as WatchEvent;
        }
      }
    } catch (error) {
      if (error instanceof SriovDraError) throw error;
      if (signal.aborted) return;
      throw classifyTransportError(error, info, true);
    } finally {
      response.destroy();
    }
  }
}

function authorization(auth: AuthMaterial): { Authorization?: string } {
  if (auth.token !== undefined) return { Authorization: `Bearer ${auth.token}` };
  if (auth.basic !== undefined) return { Authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString('base64')}` };
  return {};
}

/** The Impersonate-* headers of client-go's transport: one Impersonate-Group per group, extra keys percent-encoded. */
function impersonationHeaders(impersonate: Impersonation | undefined): Record<string, string | string[]> {
  if (impersonate === undefined) return {};
  return {
    'Impersonate-User': impersonate.user,
    ...(impersonate.uid === undefined ? {} : { 'Impersonate-Uid': impersonate.uid }),
    ...(impersonate.groups.length === 0 ? {} : { 'Impersonate-Group': [...impersonate.groups] }),
    ...Object.fromEntries(Object.entries(impersonate.extra).map(([key, values]) => [`Impersonate-Extra-${encodeURIComponent(key)}`, [...values]])),
  };
}

function createdName(body: Record<string, unknown>): string | undefined {
  const metadata = body['metadata'];
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const name = (metadata as Record<string, unknown>)['name'];
  return typeof name === 'string' ? name : undefined;
}

const WATCH_EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Whether `value` has the metadata every cached object is keyed and versioned by. */
function hasObjectMetadata(value: unknown, named: boolean): boolean {
  const metadata = (value as { metadata?: unknown } | null)?.metadata as { name?: unknown; resourceVersion?: unknown } | null | undefined;
  return typeof metadata === 'object' && metadata !== null && typeof metadata.resourceVersion === 'string' && (!named || typeof metadata.name === 'string');
}

function malformed(info: ApiRequestInfo, what: string, value: unknown): SriovDraError {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  const text = JSON.stringify(value) as string | undefined;
  return new SriovDraError('MalformedApiResponse', `${info.method} ${info.path}: ${what}: ${(text ?? 'undefined').slice(0, 128)}`, {
    object: info.object,
  });
}

/** A watch line must be a typed event carrying an object; anything else means the stream is not a watch. */
function watchEvent(value: unknown, info: ApiRequestInfo): { type: WatchEvent['type'] | 'ERROR'; object: object } {
  const event = value as { type?: unknown; object?: unknown } | null;
  if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || !WATCH_EVENT_TYPES.has(event.type))
    throw malformed(info, 'not a watch event', value);
  if (typeof event.object !== 'object' || event.object === null) throw malformed(info, 'watch event without an object', value);
  if (event.type !== 'ERROR' && !hasObjectMetadata(event.object, event.type !== 'BOOKMARK'))
    throw malformed(info, 'watch event object without metadata', value);
  return event as { type: WatchEvent['type'] | 'ERROR'; object: object };
}

/** A list must carry its resourceVersion and items that each have a name and resourceVersion. */
function checkList(value: unknown, info: ApiRequestInfo): void {
  const list = value as { items?: unknown } | null;
  if (!hasObjectMetadata(value, false) || !Array.isArray(list?.items)) throw malformed(info, 'not a list', value);
  for (const item of list.items as unknown[]) if (!hasObjectMetadata(item, true)) throw malformed(info, 'list item without metadata', item);
}
