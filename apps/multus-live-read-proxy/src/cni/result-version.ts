import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * CNI results of the versions this daemon executes (0.4.0 and the 1.x shape shared by 1.0.0 and 1.1.0),
 * validated with the field types libcni's Go structs accept and rebuilt the way those structs marshal:
 * only known fields, in struct order, empty optional fields left out. libcni hands a plugin's result to
 * the next plugin, to the cache and to Multus as such a struct, so this is the JSON every consumer sees.
 */

/** A result as plain JSON, in its canonical form. */
export type CniResult = Readonly<Record<string, unknown>> & { readonly cniVersion: string };

/**
 * The version Multus v4.2.3 answers the shim with: it converts every result to the newest spec version
 * its libcni (v1.3.0) implements, in the 1.x shape, and the shim converts it to the version it was asked
 * for.
 */
export const DAEMON_RESULT_VERSION = '1.1.0';

const RESULT_100_VERSIONS: readonly string[] = ['1.0.0', '1.1.0'];

function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  return family !== 0 && /^\d{1,3}$/u.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

// Go decodes null into any field as "leave it unset".
const cidr = z.string().refine(isCidr, 'must be an IP address with a prefix length');
const ip = z.string().refine((text) => isIP(text) !== 0, 'must be an IP address');
const optionalString = z.string().nullish();
const optionalInt = z.int().nullish();
const stringList = z.array(z.string()).nullish();

const routeSchema = z.object({
  dst: cidr,
  gw: ip.nullish(),
  mtu: optionalInt,
  advmss: optionalInt,
  priority: optionalInt,
  table: optionalInt,
  scope: optionalInt,
});
const dnsSchema = z.object({ nameservers: stringList, domain: optionalString, search: stringList, options: stringList });

const interface040Schema = z.object({ name: optionalString, mac: optionalString, sandbox: optionalString });
const interface100Schema = interface040Schema.extend({ mtu: optionalInt, socketPath: optionalString, pciID: optionalString });
const ip100Schema = z.object({ interface: optionalInt, address: cidr, gateway: ip.nullish() });
const ip040Schema = ip100Schema.extend({ version: optionalString });

function resultSchema<I extends z.ZodType, A extends z.ZodType>(interfaceSchema: I, ipSchema: A) {
  return z.object({
    cniVersion: z.string(),
    interfaces: z.array(z.union([interfaceSchema, z.null()])).nullish(),
    ips: z.array(z.union([ipSchema, z.null()])).nullish(),
    routes: z.array(z.union([routeSchema, z.null()])).nullish(),
    dns: dnsSchema.nullish(),
  });
}
const result040Schema = resultSchema(interface040Schema, ip040Schema);
const result100Schema = resultSchema(interface100Schema, ip100Schema);

type Route = z.infer<typeof routeSchema>;
type Dns = z.infer<typeof dnsSchema>;
type Interface100 = z.infer<typeof interface100Schema>;
type Ip040 = z.infer<typeof ip040Schema>;

/** The fields every version shares, as parsed; `version` only in 0.4.0 ips. */
interface ParsedResult {
  readonly interfaces: readonly Interface100[];
  readonly ips: readonly Ip040[];
  readonly routes: readonly Route[];
  readonly dns: Dns | undefined;
}

export type ResultParse = { readonly ok: true; readonly result: CniResult } | { readonly ok: false; readonly problem: string };

function present<T>(items: readonly (T | null)[] | null | undefined): T[] {
  return (items ?? []).filter((item): item is T => item !== null);
}

/** Adds `key` only when Go's omitempty would keep the value. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || value === 0) return;
  if (Array.isArray(value) && value.length === 0) return;
  target[key] = value;
}

function canonicalRoute(route: Route): Record<string, unknown> {
  const out: Record<string, unknown> = { dst: route.dst };
  put(out, 'gw', route.gw);
  put(out, 'mtu', route.mtu);
  put(out, 'advmss', route.advmss);
  put(out, 'priority', route.priority);
  // Pointers in Go: zero is kept, only an absent value is left out.
  if (route.table !== undefined && route.table !== null) out['table'] = route.table;
  if (route.scope !== undefined && route.scope !== null) out['scope'] = route.scope;
  return out;
}

function canonicalDns(dns: Dns | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  put(out, 'nameservers', dns?.nameservers);
  put(out, 'domain', dns?.domain);
  put(out, 'search', dns?.search);
  put(out, 'options', dns?.options);
  return out;
}

function ipFamilyVersion(address: string): string {
  const host = address.slice(0, address.indexOf('/'));
  // Go's To4() also accepts an IPv4-mapped IPv6 address.
  return isIP(host) === 4 || /^::ffff:\d+\.\d+\.\d+\.\d+$/iu.test(host) ? '4' : '6';
}

function canonicalIp(ipConfig: Ip040, withVersion: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Go's 0.4.0 struct marshals version even when empty.
  if (withVersion) out['version'] = ipConfig.version ?? '';
  if (ipConfig.interface !== undefined && ipConfig.interface !== null) out['interface'] = ipConfig.interface;
  out['address'] = ipConfig.address;
  put(out, 'gateway', ipConfig.gateway);
  return out;
}

function build(parsed: ParsedResult, toVersion: string): CniResult {
  const is040 = !RESULT_100_VERSIONS.includes(toVersion);
  const out: Record<string, unknown> & { cniVersion: string } = { cniVersion: toVersion };
  put(
    out,
    'interfaces',
    parsed.interfaces.map((item) => {
      const entry: Record<string, unknown> = { name: item.name ?? '' };
      put(entry, 'mac', item.mac);
      if (!is040) put(entry, 'mtu', item.mtu);
      put(entry, 'sandbox', item.sandbox);
      if (!is040) put(entry, 'socketPath', item.socketPath);
      if (!is040) put(entry, 'pciID', item.pciID);
      return entry;
    }),
  );
  put(
    out,
    'ips',
    parsed.ips.map((item) => canonicalIp(item, is040)),
  );
  put(out, 'routes', parsed.routes.map(canonicalRoute));
  const dns = canonicalDns(parsed.dns);
  // The 1.x result drops an empty dns; 0.4.0 marshals the struct, so `"dns":{}` stays.
  if (is040 || Object.keys(dns).length > 0) out['dns'] = dns;
  return out;
}

function parseAny(
  value: unknown,
): { readonly ok: true; readonly version: string; readonly parsed: ParsedResult } | { readonly ok: false; readonly problem: string } {
  const version = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)['cniVersion'] : undefined;
  if (typeof version !== 'string') return { ok: false, problem: 'the result is not an object with a cniVersion string' };
  const schema = version === '0.4.0' ? result040Schema : RESULT_100_VERSIONS.includes(version) ? result100Schema : undefined;
  if (schema === undefined) return { ok: false, problem: `result cniVersion ${JSON.stringify(version)} is not one of 0.4.0, 1.0.0, 1.1.0` };
  const checked = schema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { ok: false, problem: `the ${version} result is invalid at ${issue?.path.join('.') || '<root>'}: ${issue?.message ?? 'unknown'}` };
  }
  const data = checked.data;
  return {
    ok: true,
    version,
    parsed: {
      interfaces: present(data.interfaces),
      ips: present(data.ips),
      routes: present(data.routes),
      dns: data.dns ?? undefined,
    },
  };
}

/** Validates a plain-JSON result of a supported version and returns it in its canonical form. */
export function parseResult(value: unknown): ResultParse {
  const parsed = parseAny(value);
  return parsed.ok ? { ok: true, result: build(parsed.parsed, parsed.version) } : parsed;
}

/**
 * Converts a result to another supported version with libcni's rules: 0.4.0 → 1.x drops each IP's
 * `version`; 1.x → 0.4.0 derives it from the address and drops the interface fields 0.4.0 lacks (mtu,
 * socketPath, pciID); between 1.0.0 and 1.1.0 only cniVersion changes.
 */
export function convertResult(result: CniResult, toVersion: string): ResultParse {
  if (toVersion !== '0.4.0' && !RESULT_100_VERSIONS.includes(toVersion))
    return { ok: false, problem: `cannot convert a result to cniVersion ${JSON.stringify(toVersion)}` };
  const parsed = parseAny(result);
  if (!parsed.ok) return parsed;
  const from040 = parsed.version === '0.4.0';
  const to040 = toVersion === '0.4.0';
  // Crossing between 0.4.0 and 1.x rebuilds each IP: its version is dropped, or derived anew.
  const ips =
    from040 === to040 ? parsed.parsed.ips : parsed.parsed.ips.map((item) => ({ ...item, version: to040 ? ipFamilyVersion(item.address) : undefined }));
  return { ok: true, result: build({ ...parsed.parsed, ips }, toVersion) };
}

/** The result in the shape and version Multus returns to the shim inside `{"Result": …}`. */
export function toResult100(result: CniResult): CniResult {
  const converted = convertResult(result, DAEMON_RESULT_VERSION);
  if (!converted.ok) throw new TypeError(`toResult100 needs a result parsed by parseResult: ${converted.problem}`);
  return converted.result;
}
