import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * Where the prefix of a VF's address comes from. Multus's network-status carries bare addresses (its
 * wire format has no prefix, and the Multus daemon keeps that format so that whatever reads upstream's
 * annotation reads ours). The prefix the CNI result had is decided by the IPAM configuration the
 * plugin ran with, and that configuration is frozen in the binding's rendered shadow config:
 * - host-local answers with the mask of the range (`ranges[][].subnet`, or the older `subnet`) the
 *   address was taken from;
 * - whereabouts with the mask of its `range` (or of the `ipRanges[].range` the address is in), including
 *   the "first-last/prefix" form; fast node slices, which would hand out the node's slice instead, are
 *   refused before rendering;
 * - static with the prefix its `addresses[].address` entry gives that address.
 * Anything else (dhcp, a third-party IPAM, an address outside every configured range) does not tell the
 * prefix: the address is given as a host route, /32 or /128 — exact about the address, silent about
 * the subnet, rather than a guessed mask.
 */

const rangeSchema = z.looseObject({ subnet: z.string().optional(), range: z.string().optional() });
const ipamSchema = z.looseObject({
  type: z.string().optional(),
  subnet: z.string().optional(),
  ranges: z.array(z.array(rangeSchema)).optional(),
  range: z.string().optional(),
  ipRanges: z.array(rangeSchema).optional(),
  addresses: z.array(z.looseObject({ address: z.string() })).optional(),
});
const pluginSchema = z.looseObject({ ipam: z.unknown().optional() });
const configSchema = z.looseObject({ ipam: z.unknown().optional(), plugins: z.array(pluginSchema).optional() });

type Ipam = z.infer<typeof ipamSchema>;

interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** "address/prefix", the address either a network or a host address ("first-last/prefix" reads as last/prefix). */
function parseCidr(text: string): Cidr | undefined {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash).split('-').at(-1)?.trim() ?? '';
  const digits = text.slice(slash + 1).trim();
  const version = isIP(address);
  if (version === 0 || !/^\d{1,3}$/.test(digits)) return undefined;
  const prefix = Number(digits);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

function contains(network: Cidr, address: string): boolean {
  const version = isIP(address);
  if (version === 0 || (version === 4) !== (network.family === 'ipv4')) return false;
  const block = new BlockList();
  block.addSubnet(network.address, network.prefix, network.family);
  return block.check(address, network.family);
}

/** The CIDRs an IPAM configuration hands addresses out of, and for static the exact addresses. */
function scopes(ipam: Ipam): { readonly ranges: Cidr[]; readonly exact: Cidr[] } {
  if (ipam.type === 'host-local') return { ranges: [...(ipam.ranges ?? []).flat().map((range) => range.subnet), ipam.subnet].flatMap(cidrOf), exact: [] };
  if (ipam.type === 'whereabouts') return { ranges: [ipam.range, ...(ipam.ipRanges ?? []).map((range) => range.range)].flatMap(cidrOf), exact: [] };
  if (ipam.type === 'static') return { ranges: [], exact: (ipam.addresses ?? []).map((entry) => entry.address).flatMap(cidrOf) };
  return { ranges: [], exact: [] };
}

function cidrOf(text: string | undefined): Cidr[] {
  const cidr = text === undefined ? undefined : parseCidr(text);
  return cidr === undefined ? [] : [cidr];
}

/** Every plugin's IPAM section of a CNI configuration (single plugin or conflist); none when unreadable. */
function ipamSections(renderedConfig: string): Ipam[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(renderedConfig);
  } catch {
    return [];
  }
  const config = configSchema.safeParse(parsed);
  if (!config.success) return [];
  return [config.data.ipam, ...(config.data.plugins ?? []).map((plugin) => plugin.ipam)].flatMap((section) => {
    const ipam = section === undefined ? undefined : ipamSchema.safeParse(section);
    return ipam?.success === true ? [ipam.data] : [];
  });
}

/**
 * The prefix-carrying form of an address a VF got through the given rendered CNI configuration, or
 * undefined when the address is not an IP address. The prefix is the IPAM's own (see above); a host
 * route when the configuration cannot tell it.
 */
export function addressWithPrefix(address: string, renderedConfig: string): string | undefined {
  const version = isIP(address);
  if (version === 0) return undefined;
  for (const ipam of ipamSections(renderedConfig)) {
    const { ranges, exact } = scopes(ipam);
    const match =
      exact.find((cidr) => isIP(cidr.address) === version && contains({ ...cidr, prefix: version === 4 ? 32 : 128 }, address)) ??
      ranges.find((range) => contains(range, address));
    if (match !== undefined) return `${address}/${match.prefix}`;
  }
  return `${address}/${version === 4 ? 32 : 128}`;
}
