import { isIPv4, isIPv6 } from 'node:net';
import type { JsonValue } from '@sriov-dra/contract';
import { type NetworkSelection, goFoldEqual } from '@sriov-dra/cni-render';
import type { CniResult } from '../cni/result-version.ts';
import { DefaultRouteError } from './default-route-error.ts';

/**
 * A selection's `default-route` as Multus v4.2.3 applies it. Before anything runs, every delegate is marked:
 * one that asks for no gateway of a family has that family's default route filtered (IsFilterV4Gateway,
 * IsFilterV6Gateway). After each delegate's ADD, its interface loses its default routes where it is filtered
 * or asks for a gateway, gets `default via <gw>` for each gateway it asks for, and its libcni cache entry is
 * rewritten to match. The result answered and network-status stay the plugin's own, as upstream's do.
 */
export interface GatewayPlan {
  /** The selection's gateways, as Go prints a net.IP; undefined when the selection has no `default-route`. */
  readonly gatewayRequest?: readonly string[];
  readonly filterV4Gateway: boolean;
  readonly filterV6Gateway: boolean;
}

/** What to change on one interface after its delegate's ADD. */
export interface DefaultRouteChange {
  /** Remove the cached result's IPv4 default routes (the interface loses all its default routes either way). */
  readonly deleteV4: boolean;
  readonly deleteV6: boolean;
  /** `default via <gw>` to add on the interface, in the order asked. */
  readonly gateways: readonly string[];
}

export const NO_GATEWAY_PLAN: GatewayPlan = { filterV4Gateway: false, filterV6Gateway: false };

/** An IPv6 address as Go's net.IP.String() prints it: an IPv4-mapped one dotted, else RFC 5952 (WHATWG's serializer agrees). */
function goIPv6String(text: string): string {
  const compressed = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (mapped === null) return compressed;
  const [high, low] = [Number.parseInt(mapped[1] ?? '', 16), Number.parseInt(mapped[2] ?? '', 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The gateway as Go prints it (an IPv4-mapped IPv6 address dotted, so its family is IPv4 as Go's To4() decides), or undefined for no address. */
function gateway(text: string): string | undefined {
  if (isIPv4(text)) return text;
  return isIPv6(text) ? goIPv6String(text) : undefined;
}

/**
 * The selection's `default-route` (the member Go's decoder matches case-insensitively), already checked to
 * be IP addresses by the selection parser. Go decodes null or "" into an empty net.IP, which upstream counts
 * as an IPv6 gateway and then fails to route; it is refused here before anything runs.
 */
export function gatewayRequestOf(selection: NetworkSelection | undefined, subject: string): readonly string[] | undefined {
  if (selection === undefined) return undefined;
  let value: JsonValue | undefined;
  for (const [key, member] of selection.raw) if (goFoldEqual(key, 'default-route')) value = member;
  if (value === undefined || value === null || !Array.isArray(value)) return undefined;
  return value.map((entry, index) => {
    const parsed = typeof entry === 'string' ? gateway(entry) : undefined;
    if (parsed === undefined) {
      throw new DefaultRouteError(
        'InvalidDefaultRoute',
        subject,
        `network ${selection.namespace}/${selection.name}: default-route[${String(index)}] is not an IP address`,
      );
    }
    return parsed;
  });
}

function family(ip: string): 'v4' | 'v6' {
  return isIPv4(ip) ? 'v4' : 'v6';
}

/**
 * Multus's CheckGatewayConfig, run as upstream runs it: only when the Pod has a networks annotation and some
 * delegate carries a `default-route` (even an empty one). More than one gateway of a family over all
 * delegates is refused; otherwise every delegate is filtered for each family it asks no gateway of.
 * Without the check nothing is filtered, and a delegate asking for a gateway still gets it.
 */
export function markGatewayFilters(requests: readonly (readonly string[] | undefined)[], podHasNetworks: boolean, subject: string): GatewayPlan[] {
  const plans = requests.map((gatewayRequest) => (gatewayRequest === undefined ? NO_GATEWAY_PLAN : { ...NO_GATEWAY_PLAN, gatewayRequest }));
  if (!podHasNetworks || requests.every((request) => request === undefined)) return plans;
  const all = requests.flatMap((request) => request ?? []);
  const v4 = all.filter((ip) => family(ip) === 'v4');
  const v6 = all.filter((ip) => family(ip) === 'v6');
  if (v4.length > 1 || v6.length > 1) {
    throw new DefaultRouteError(
      'DefaultRouteEcmpUnsupported',
      subject,
      `the Pod's networks ask for ${String(v4.length)} IPv4 and ${String(v6.length)} IPv6 default gateways (${all.join(', ')})`,
    );
  }
  return plans.map((plan) => {
    const asked = plan.gatewayRequest ?? [];
    return { ...plan, filterV4Gateway: !asked.some((ip) => family(ip) === 'v4'), filterV6Gateway: !asked.some((ip) => family(ip) === 'v6') };
  });
}

/**
 * What changes on a delegate's interface after its ADD, or undefined for nothing. As upstream: only when the
 * result (in the 1.x shape) lists interfaces or IPs — a plugin that created nothing is left alone — and a
 * non-empty `default-route` removes the interface's default routes before adding its own.
 */
export function defaultRouteChange(plan: GatewayPlan, result100: CniResult): DefaultRouteChange | undefined {
  if (!Array.isArray(result100['interfaces']) && !Array.isArray(result100['ips'])) return undefined;
  const gateways = plan.gatewayRequest ?? [];
  const deleteV4 = plan.filterV4Gateway || gateways.length > 0;
  const deleteV6 = plan.filterV6Gateway || gateways.length > 0;
  if (!deleteV4 && !deleteV6) return undefined;
  return { deleteV4, deleteV6, gateways };
}
