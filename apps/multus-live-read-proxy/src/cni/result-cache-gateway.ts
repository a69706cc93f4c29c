import { readFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import { writeFileAtomic } from '@sriov-dra/durable-files';
import { cacheFilePath } from './result-cache.ts';
import type { RuntimeConf } from './runtime-conf.ts';

/**
 * The libcni cache entry of an attachment whose default routes Multus changed (upstream's
 * DeleteDefaultGWCache and AddDefaultGWCache): the cached result then tells DEL, CHECK and GC's readers
 * the routes the sandbox really has. Upstream's rules, kept: routes are matched by their `dst` text
 * ("0.0.0.0/0", and "::0/0" for IPv6, so a plugin's "::/0" stays), a route without `dst` is dropped, a
 * list left empty is removed, added routes are {"dst","gw"}; the file is re-encoded as Go encodes a
 * map (keys sorted at every level, <, > and & escaped). Upstream knows result versions 0.3.0 to 1.0.0 and
 * fails on 1.1.0; 1.1.0 has the same routes, so it is rewritten alike.
 */

const V4_DEFAULT = '0.0.0.0/0';
const V6_DEFAULT = '::0/0';
const ROUTED_VERSIONS: ReadonlySet<string> = new Set(['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0']);

export interface CachedGatewayChange {
  readonly deleteV4: boolean;
  readonly deleteV6: boolean;
  readonly gateways: readonly string[];
}

type JsonMap = Record<string, unknown>;

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutDefault(routes: readonly unknown[], dst: string): unknown[] {
  return routes.filter((route) => {
    if (!isMap(route)) throw new Error(`wrong route format: ${JSON.stringify(route)}`);
    if (!('dst' in route)) return false;
    if (typeof route['dst'] !== 'string') throw new Error(`wrong dst format: ${JSON.stringify(route['dst'])}`);
    return route['dst'] !== dst;
  });
}

/** The cached result with the change applied (pure). */
export function changeCachedRoutes(result: JsonMap, change: CachedGatewayChange): JsonMap {
  const version = result['cniVersion'];
  if (typeof version !== 'string' || !ROUTED_VERSIONS.has(version)) throw new Error(`not supported version: ${JSON.stringify(version)}`);
  const next: JsonMap = { ...result };
  if ((change.deleteV4 || change.deleteV6) && 'routes' in next) {
    let routes = next['routes'];
    if (!Array.isArray(routes)) throw new Error(`wrong routes format: ${JSON.stringify(routes)}`);
    if (change.deleteV4) routes = withoutDefault(routes, V4_DEFAULT);
    if (change.deleteV6) routes = withoutDefault(routes as unknown[], V6_DEFAULT);
    if ((routes as unknown[]).length === 0) delete next['routes'];
    else next['routes'] = routes;
  }
  if (change.gateways.length > 0) {
    const routes: unknown = next['routes'] ?? [];
    if (!Array.isArray(routes)) throw new Error(`wrong routes format: ${JSON.stringify(routes)}`);
    next['routes'] = [...(routes as unknown[]), ...change.gateways.map((gw) => ({ dst: isIPv4(gw) ? V4_DEFAULT : V6_DEFAULT, gw }))];
  }
  return next;
}

/** Go's json.Marshal of a map[string]interface{}: keys sorted by bytes at every level, HTML characters escaped. */
export function goMapJson(value: unknown): string {
  const sorted = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sorted);
    if (!isMap(item)) return item;
    const keys = Object.keys(item).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return Object.fromEntries(keys.map((key) => [key, sorted(item[key])]));
  };
  return JSON.stringify(sorted(value)).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Rewrites `<cacheDir>/results/<network>-<containerID>-<ifName>`; every failure names the file. */
export async function changeCachedGateways(network: string, rt: RuntimeConf, change: CachedGatewayChange): Promise<void> {
  const path = cacheFilePath(network, rt);
  let entry: unknown;
  try {
    entry = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!isMap(entry) || !('result' in entry)) throw new Error(`${path}: cannot get result from cache`);
  const result = entry['result'];
  if (!isMap(result)) throw new Error(`${path}: wrong result type`);
  let changed: JsonMap;
  try {
    changed = changeCachedRoutes(result, change);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
  await writeFileAtomic(path, goMapJson({ ...entry, result: changed }), { flush: false });
}
