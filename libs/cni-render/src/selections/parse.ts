import {
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type Result,
  annotations,
  fail,
  isInterfaceName,
  isJsonObject,
  ok,
  parseStrictJson,
} from '@sriov-dra/contract';
import { isIP } from 'node:net';

/**
 * One entry of k8s.v1.cni.cncf.io/networks: the typed view Multus acts on, plus the raw object exactly
 * as written, so unknown fields, options and their order survive a rewrite (§9 rule 2).
 */
export interface NetworkSelection {
  readonly name: string;
  /** Effective namespace: as written, or the Pod's namespace when omitted (Multus's default). */
  readonly namespace: string;
  readonly interface: string | undefined;
  readonly raw: JsonObject;
  /** The entry's exact text in a JSON annotation; written back verbatim while the entry is kept. */
  readonly text?: string;
}

/** Multus's rule for names in comma notation (and for namespaces there). */
const COMMA_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAC = /^(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}$/;

/**
 * Parses the networks annotation the way Multus does (§9 rule 1): absent or empty means no selections;
 * text containing "[", "{" or '"' is a JSON array of selection objects; anything else is comma notation
 * `[namespace/]name[@interface]`. Malformed input is an error — never silently replaced.
 */
export function parseNetworkSelections(raw: string | undefined, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const where: ObjectRef | undefined = object === undefined ? undefined : { ...object, field: `annotation ${annotations.networks}` };
  if (raw === undefined || raw.trim() === '') return ok([]);
  return /[[{"]/.test(raw) ? parseJsonSelections(raw, podNamespace, where) : parseCommaSelections(raw, podNamespace, where);
}

function parseCommaSelections(raw: string, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const selections: NetworkSelection[] = [];
  for (const [index, item] of raw.split(',').entries()) {
    const slash = item.trim().split('/');
    if (slash.length > 2) return fail('MalformedNetworkSelections', `entry ${index} ${JSON.stringify(item)} has more than one "/"`, { object });
    const namespace = slash.length === 2 ? (slash[0] ?? '').trim() : undefined;
    const at = (slash[slash.length - 1] ?? '').split('@');
    if (at.length > 2) return fail('MalformedNetworkSelections', `entry ${index} ${JSON.stringify(item)} has more than one "@"`, { object });
    const name = (at[0] ?? '').trim();
    const iface = at.length === 2 ? (at[1] ?? '').trim() : undefined;
    for (const part of [name, namespace ?? 'default']) {
      if (!COMMA_NAME.test(part))
        return fail('MalformedNetworkSelections', `entry ${index} ${JSON.stringify(item)}: ${JSON.stringify(part)} is not a lowercase DNS label`, { object });
    }
    if (iface !== undefined && !isInterfaceName(iface))
      return fail('MalformedNetworkSelections', `entry ${index}: interface ${JSON.stringify(iface)} is not a valid interface name`, { object });
    const rawObject: JsonObject = new Map<string, JsonValue>([['name', name]]);
    if (namespace !== undefined) rawObject.set('namespace', namespace);
    if (iface !== undefined) rawObject.set('interface', iface);
    selections.push({ name, namespace: namespace ?? podNamespace, interface: iface, raw: rawObject });
  }
  return ok(selections);
}

function stringField(entry: JsonObject, key: string): string | undefined | null {
  const value = entry.get(key);
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

function parseJsonSelections(raw: string, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const parsed = parseStrictJson(raw);
  if (!parsed.ok) return fail('MalformedNetworkSelections', parsed.error.message, { object });
  if (!Array.isArray(parsed.value)) return fail('MalformedNetworkSelections', 'a JSON networks annotation must be an array of selections', { object });
  const selections: NetworkSelection[] = [];
  for (const [index, entry] of parsed.value.entries()) {
    const at = `entry ${index}`;
    if (!isJsonObject(entry)) return fail('MalformedNetworkSelections', `${at} is not an object`, { object });
    const name = stringField(entry, 'name');
    if (name === undefined || name === null || name === '') return fail('MalformedNetworkSelections', `${at} has no name`, { object });
    const namespace = stringField(entry, 'namespace');
    const iface = stringField(entry, 'interface');
    const mac = stringField(entry, 'mac');
    if (namespace === null || iface === null || mac === null) {
      return fail('MalformedNetworkSelections', `${at}: namespace, interface and mac must be strings`, { object });
    }
    if (iface !== undefined && iface !== '' && !isInterfaceName(iface))
      return fail('MalformedNetworkSelections', `${at}: interface ${JSON.stringify(iface)} is not a valid interface name`, { object });
    if (mac !== undefined && mac !== '' && !MAC.test(mac))
      return fail('MalformedNetworkSelections', `${at}: mac ${JSON.stringify(mac)} is not a MAC address`, { object });
    const ips = entry.get('ips');
    if (ips !== undefined) {
      if (!Array.isArray(ips) || !ips.every((ip) => typeof ip === 'string' && isIP(ip.split('/')[0] ?? '') !== 0)) {
        return fail('MalformedNetworkSelections', `${at}: ips must be a list of IP addresses or CIDRs`, { object });
      }
    }
    selections.push({
      name,
      namespace: namespace === undefined || namespace === '' ? podNamespace : namespace,
      interface: iface === '' ? undefined : iface,
      raw: entry,
      text: parsed.elementTexts[index],
    });
  }
  return ok(selections);
}
