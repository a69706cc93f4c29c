import { isIPv4, isIPv6 } from 'node:net';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, type ObjectIdentity, type ObjectLocation, type Pod, annotationChanges, patchGuarded, resourceTypes } from '@sriov-dra/k8s';
import { z } from 'zod';

/**
 * The `k8s.v1.cni.cncf.io/network-status` annotation, built and written as upstream Multus v4.2.3 does
 * with the NAD client v1.7.6 (pkg/utils CreateNetworkStatuses, SetNetworkStatus): one entry per Pod
 * interface of each delegate's result, each entry Go's MarshalIndent with four spaces, joined by ','.
 * Whereabouts' IP reconciler finds orphaned allocations by these IPs, so the annotation must be written.
 */

/** NAD client DeviceInfo (`device-info`); key names are the wire names. */
export interface DeviceInfo {
  readonly type?: string;
  readonly version?: string;
  readonly pci?: {
    readonly 'pci-address'?: string;
    readonly 'vhost-net'?: string;
    readonly 'rdma-device'?: string;
    readonly 'pf-pci-address'?: string;
    readonly 'representor-device'?: string;
  };
}

export interface NetworkStatusDns {
  readonly nameservers?: readonly string[];
  readonly domain?: string;
  readonly search?: readonly string[];
  readonly options?: readonly string[];
}

export interface NetworkStatus {
  readonly name: string;
  readonly interface?: string;
  readonly ips?: readonly string[];
  readonly mac?: string;
  readonly mtu?: number;
  readonly default?: boolean;
  readonly dns: NetworkStatusDns;
  readonly 'device-info'?: DeviceInfo;
  readonly gateway?: readonly string[];
}

export class InvalidCniResultError extends Error {
  override readonly name = 'InvalidCniResultError';
  readonly code = 'InvalidCniResult';
  constructor(network: string, detail: string) {
    super(
      `InvalidCniResult: delegate ${network}: ${detail} \u2014 the plugin returned a result that is not a CNI 1.0.0 result; check the plugin's version and its stdout`,
    );
  }
}

const strings = z.array(z.string()).nullish();
const cniResultSchema = z.looseObject({
  interfaces: z
    .array(z.looseObject({ name: z.string().nullish(), mac: z.string().nullish(), mtu: z.number().int().nullish(), sandbox: z.string().nullish() }))
    .nullish(),
  ips: z.array(z.looseObject({ address: z.string(), gateway: z.string().nullish(), interface: z.number().int().nullish() })).nullish(),
  routes: z.array(z.looseObject({ dst: z.string(), gw: z.string().nullish() })).nullish(),
  dns: z.looseObject({ nameservers: strings, domain: z.string().nullish(), search: strings, options: strings }).nullish(),
});

/** Go's net.IP String of a parsed address; undefined for text Go's ParseIP refuses. */
function goIpString(text: string): string | undefined {
  if (isIPv4(text)) return text;
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const canonical = new URL(`http://[${text}]`).hostname.slice(1, -1);
  // Go prints an IPv4-mapped address in dotted form.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped === null) return canonical;
  const high = Number.parseInt(mapped[1] ?? '0', 16);
  const low = Number.parseInt(mapped[2] ?? '0', 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The address part of a CIDR as Go's types.ParseCIDR keeps it (not masked). */
function cidrAddress(network: string, cidr: string): string {
  const slash = cidr.lastIndexOf('/');
  const ip = slash < 0 ? undefined : goIpString(cidr.slice(0, slash));
  const prefix = cidr.slice(slash + 1);
  const bits = cidr.slice(0, slash).includes(':') ? 128 : 32;
  if (ip === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) throw new InvalidCniResultError(network, `${JSON.stringify(cidr)} is not a CIDR`);
  return ip;
}

/** NAD client isDefaultRoute: a destination whose address is 0.0.0.0 or :: (any prefix length). */
function isDefaultRoute(network: string, dst: string): boolean {
  const ip = cidrAddress(network, dst);
  return ip === '0.0.0.0' || ip === '::';
}

/** Go prints a route without a gateway as net.IP(nil).String(), "<nil>", which upstream writes (escaped by Go's JSON). */
function gatewayOf(network: string, gw: string | null | undefined): string {
  if (gw === undefined || gw === null) return '<nil>';
  const ip = goIpString(gw);
  if (ip === undefined) throw new InvalidCniResultError(network, `route gateway ${JSON.stringify(gw)} is not an IP address`);
  return ip;
}

function dnsOf(dns: z.infer<typeof cniResultSchema>['dns']): NetworkStatusDns {
  return {
    ...(dns?.nameservers?.length ? { nameservers: dns.nameservers } : {}),
    ...(dns?.domain ? { domain: dns.domain } : {}),
    ...(dns?.search?.length ? { search: dns.search } : {}),
    ...(dns?.options?.length ? { options: dns.options } : {}),
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The statuses of one delegate's CNI 1.0.0 result (NAD client CreateNetworkStatuses): a result with
 * exactly one interface gives one status holding every IP; otherwise one status per interface with a
 * sandbox, each IP going to the interface it names (or, without one, to the last of them), and the
 * default marker on the first sandbox interface that has a gateway, else the first sandbox interface.
 */
export function buildNetworkStatuses(network: string, result: unknown, isDefault: boolean, deviceInfo?: DeviceInfo): NetworkStatus[] {
  const parsed = cniResultSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidCniResultError(network, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const interfaces = parsed.data.interfaces ?? [];
  const ips = parsed.data.ips ?? [];
  const gateways = (parsed.data.routes ?? []).filter((route) => isDefaultRoute(network, route.dst)).map((route) => gatewayOf(network, route.gw));
  const dns = dnsOf(parsed.data.dns);
  const withOptional = (status: Mutable<NetworkStatus>): NetworkStatus => {
    if (gateways.length > 0) status.gateway = gateways;
    if (deviceInfo !== undefined) status['device-info'] = deviceInfo;
    return status;
  };

  if (interfaces.length === 1) {
    const status: Mutable<NetworkStatus> = { name: network, dns };
    if (isDefault) status.default = true;
    for (const iface of interfaces) {
      if (!iface.sandbox) continue;
      if (iface.name) status.interface = iface.name;
      if (iface.mac) status.mac = iface.mac;
      if (iface.mtu) status.mtu = iface.mtu;
    }
    const addresses = ips.map((ip) => cidrAddress(network, ip.address));
    if (addresses.length > 0) status.ips = addresses;
    return [withOptional(status)];
  }

  const gatewayInterface = isDefault ? (ips.find((ip) => ip.gateway != null && ip.interface != null)?.interface ?? -1) : -1;
  const statuses: { status: Mutable<NetworkStatus>; ips: string[] }[] = [];
  const byIndex = new Map<number, number>();
  let gatewayMarked = false;
  let firstMarked = false;
  interfaces.forEach((iface, index) => {
    if (!iface.sandbox) return;
    let marked = false;
    if (isDefault && index === gatewayInterface && !gatewayMarked) marked = gatewayMarked = true;
    if (isDefault && gatewayInterface === -1 && !firstMarked) marked = firstMarked = true;
    const status: Mutable<NetworkStatus> = { name: network, dns };
    if (iface.name) status.interface = iface.name;
    if (iface.mac) status.mac = iface.mac;
    if (iface.mtu) status.mtu = iface.mtu;
    if (marked) status.default = true;
    byIndex.set(index, statuses.length);
    statuses.push({ status, ips: [] });
  });
  const last = statuses.at(-1);
  for (const ip of ips) {
    const address = cidrAddress(network, ip.address);
    const target = ip.interface === undefined || ip.interface === null ? last : statuses[byIndex.get(ip.interface) ?? -1];
    target?.ips.push(address);
  }
  return statuses.map(({ status, ips: addresses }) => {
    if (addresses.length > 0) status.ips = addresses;
    return withOptional(status);
  });
}

function goQuote(text: string): string {
  return JSON.stringify(text.toWellFormed()).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's json.MarshalIndent(value, "", "    ") for the status structs (every member already in struct order). */
function marshalIndent(value: unknown, depth: number): string {
  const inner = '    '.repeat(depth + 1);
  const outer = '    '.repeat(depth);
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${marshalIndent(item, depth + 1)}`).join(',\n')}\n${outer}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter((entry) => entry[1] !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${inner}${goQuote(key)}: ${marshalIndent(item, depth + 1)}`).join(',\n')}\n${outer}}`;
}

const DEVICE_INFO_ORDER = ['type', 'version', 'pci'] as const;
const PCI_ORDER = ['pci-address', 'vhost-net', 'rdma-device', 'pf-pci-address', 'representor-device'] as const;
const DNS_ORDER = ['nameservers', 'domain', 'search', 'options'] as const;
const STATUS_ORDER = ['name', 'interface', 'ips', 'mac', 'mtu', 'default', 'dns', 'device-info', 'gateway'] as const;

/** Members in Go struct order, omitempty ones left out when empty (name and dns never are). */
function ordered(value: object, order: readonly string[], always: readonly string[] = []): Record<string, unknown> {
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of order) {
    const item = source[key];
    const empty = item === undefined || item === '' || item === 0 || item === false || (Array.isArray(item) && item.length === 0);
    if (!empty || always.includes(key)) out[key] = item;
  }
  return out;
}

/** The annotation value SetNetworkStatus writes: `[` + MarshalIndent of each status joined by `,` + `]`. */
export function serializeNetworkStatuses(statuses: readonly NetworkStatus[]): string {
  const entries = statuses.map((status) => {
    const deviceInfo = status['device-info'];
    const structured = {
      ...ordered(status, STATUS_ORDER, ['name', 'dns']),
      dns: ordered(status.dns, DNS_ORDER),
      ...(deviceInfo === undefined
        ? {}
        : {
            'device-info': { ...ordered(deviceInfo, DEVICE_INFO_ORDER), ...(deviceInfo.pci === undefined ? {} : { pci: ordered(deviceInfo.pci, PCI_ORDER) }) },
          }),
    };
    return marshalIndent(ordered(structured, STATUS_ORDER, ['name', 'dns']), 0);
  });
  return `[${entries.join(',')}]`;
}

export interface NetworkStatusWrite {
  readonly written: boolean;
  /** Patch requests sent, including ones that lost a race. */
  readonly attempts: number;
}

/**
 * Sets the annotation on `pods/status`, as upstream's UpdateStatus does, but as a JSON Patch behind
 * `test`s of the Pod's UID and resourceVersion: a concurrent writer makes the patch fail and the write
 * is recomputed from a fresh read (bounded), and a Pod replaced under the same name is refused with
 * ObjectReplaced instead of being given another Pod's addresses. No statuses, no write (as upstream).
 */
export async function writeNetworkStatus(client: KubeClient, pod: Pod, statuses: readonly NetworkStatus[], signal: AbortSignal): Promise<NetworkStatusWrite> {
  if (statuses.length === 0) return { written: false, attempts: 0 };
  const value = serializeNetworkStatuses(statuses);
  const at: ObjectIdentity & ObjectLocation = { namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid, subresource: 'status' };
  const result = await patchGuarded<Pod & { metadata: { name: string; uid: string; resourceVersion: string } }>(
    client,
    resourceTypes.pod,
    at,
    (live) => annotationChanges(live.metadata.annotations, { [annotations.networkStatus]: value }),
    // The ADD read this Pod moments ago: patching against it saves a GET; a stale copy costs one retry.
    { signal, current: pod },
  );
  return { written: result.changed, attempts: result.attempts };
}
