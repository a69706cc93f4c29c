import { type JsonObject, type JsonValue, type ObjectRef, type Result, annotations, fail, isInterfaceName, ok, parseStrictJson } from '@sriov-dra/contract';
import { decodeSelectionElement } from './selection-element.ts';
import { goTrimSpace } from './go-net.ts';

/**
 * One entry of k8s.v1.cni.cncf.io/networks: the typed view Multus acts on, plus the raw object exactly
 * as written, so unknown fields, options and their order survive a rewrite (§9 rule 2).
 */
export interface NetworkSelection {
  readonly name: string;
  /** Effective namespace: as written, or the Pod's namespace when omitted or empty (Multus's default). */
  readonly namespace: string;
  /** Effective interface request: `interface`, else the deprecated `interfaceRequest`; undefined when neither is set. */
  readonly interface: string | undefined;
  readonly mac?: string;
  readonly ips?: readonly string[];
  readonly infinibandGUID?: string;
  readonly deviceID?: string;
  readonly raw: JsonObject;
  /** The entry's exact text in a JSON annotation; written back verbatim while the entry is kept. */
  readonly text?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Multus's rule for names in comma notation (and for namespaces there). */
const COMMA_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** What Multus refuses in a comma-notation interface besides its length. */
const COMMA_INTERFACE_FORBIDDEN = /[ \t\n\v\f\r/]/;

/**
 * Parses the networks annotation the way Multus v4.2.3 does (§9 rule 1): absent or empty means no
 * selections; text containing "[", "{" or '"' is a JSON array of selection objects, decoded as Go
 * decodes Multus's NetworkSelectionElement; anything else is comma notation
 * `[namespace/]name[@interface]`. Malformed input is an error — never silently replaced.
 *
 * Refused here although Multus parses them: an empty name (comma entry "", "ns/", whitespace-only
 * text, JSON name "" or null) and an interface the kernel refuses ("a:b", 16+ bytes), on which Multus
 * or the plugin fails later anyway; two keys of one entry that Go folds to one field, or an exact
 * duplicate, because Go silently keeps the last; nesting deeper than 128. The differential tests
 * against Multus list each class with its reason.
 */
export function parseNetworkSelections(raw: string | undefined, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const where: ObjectRef | undefined = object === undefined ? undefined : { ...object, field: object.field ?? `annotation ${annotations.networks}` };
  if (raw === undefined || raw === '') return ok([]);
  return /[[{"]/.test(raw) ? parseJsonSelections(raw, podNamespace, where) : parseCommaSelections(raw, podNamespace, where);
}

function malformed(message: string, object: ObjectRef | undefined): Result<never> {
  return fail('MalformedNetworkSelections', message, { object });
}

function parseCommaSelections(raw: string, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const selections: NetworkSelection[] = [];
  for (const [index, item] of raw.split(',').entries()) {
    const at = `entry ${index} ${JSON.stringify(item)}`;
    const slash = goTrimSpace(item).split('/');
    if (slash.length > 2) return malformed(`${at} has more than one "/"`, object);
    // The `?? ''` fallbacks below only satisfy noUncheckedIndexedAccess: split returns at least one
    // piece and every index read is within its length.
    const namespace = slash.length === 2 ? goTrimSpace(slash[0] ?? '') : '';
    const atSign = (slash[slash.length - 1] ?? '').split('@');
    if (atSign.length > 2) return malformed(`${at} has more than one "@"`, object);
    // Stryker disable next-line StringLiteral: unreachable fallback (see above).
    const name = goTrimSpace(atSign[0] ?? '');
    const iface = atSign.length === 2 ? goTrimSpace(atSign[1] ?? '') : '';
    if (name === '') return malformed(`${at} names no network`, object);
    for (const part of [namespace, name]) {
      if (part !== '' && !COMMA_NAME.test(part)) return malformed(`${at}: ${JSON.stringify(part)} is not a lowercase DNS label`, object);
    }
    // Multus's own two tests, spelled out; isInterfaceName alone refuses the same names.
    if (iface !== '' && (Buffer.byteLength(iface, 'utf8') > 15 || COMMA_INTERFACE_FORBIDDEN.test(iface) || !isInterfaceName(iface)))
      return malformed(`${at}: interface ${JSON.stringify(iface)} is not a valid interface name`, object);
    const rawObject: JsonObject = new Map<string, JsonValue>([['name', name]]);
    if (namespace !== '') rawObject.set('namespace', namespace);
    if (iface !== '') rawObject.set('interface', iface);
    selections.push({
      name,
      namespace: namespace === '' ? podNamespace : namespace,
      interface: iface === '' ? undefined : iface,
      raw: rawObject,
    });
  }
  return ok(selections);
}

function parseJsonSelections(raw: string, podNamespace: string, object?: ObjectRef): Result<NetworkSelection[]> {
  const parsed = parseStrictJson(raw);
  if (!parsed.ok) return malformed(parsed.error.message, object);
  if (!Array.isArray(parsed.value)) return malformed('a JSON networks annotation must be an array of selections', object);
  const selections: NetworkSelection[] = [];
  for (const [index, entry] of parsed.value.entries()) {
    const element = decodeSelectionElement(entry, index);
    if (typeof element === 'string') return malformed(element, object);
    if (element.name === '') return malformed(`entry ${index} has no name`, object);
    const iface = element.interface !== '' ? element.interface : element.interfaceRequest;
    if (iface !== '' && !isInterfaceName(iface)) return malformed(`entry ${index}: interface ${JSON.stringify(iface)} is not a valid interface name`, object);
    const selection: Mutable<NetworkSelection> = {
      name: element.name,
      namespace: element.namespace === '' ? podNamespace : element.namespace,
      interface: iface === '' ? undefined : iface,
      raw: entry as JsonObject,
    };
    const text = parsed.elementTexts[index];
    if (text !== undefined) selection.text = text;
    if (element.mac !== '') selection.mac = element.mac;
    if (element.ips !== undefined) selection.ips = element.ips;
    if (element['infiniband-guid'] !== '') selection.infinibandGUID = element['infiniband-guid'];
    if (element.deviceID !== '') selection.deviceID = element.deviceID;
    selections.push(selection);
  }
  return ok(selections);
}
