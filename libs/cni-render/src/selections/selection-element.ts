import { type JsonValue, JsonNumber, isJsonObject } from '@sriov-dra/contract';
import { findFloat64Overflow, findFoldedDuplicate, goFoldKey, isGoInt64 } from '../go-json.ts';
import { isGoCIDR, isGoIP, isGoMac } from './go-net.ts';

/**
 * One JSON selection decoded the way Multus v4.2.3 decodes its NetworkSelectionElement with Go's
 * encoding/json, followed by the checks Multus applies right after (mac, infiniband-guid, ips). Strings
 * that are null or absent are "" as in Go.
 */
export interface SelectionElement {
  readonly name: string;
  readonly namespace: string;
  readonly interface: string;
  readonly interfaceRequest: string;
  readonly mac: string;
  readonly infinibandGUID: string;
  readonly deviceID: string;
  readonly ips: readonly string[] | undefined;
}

type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

type FieldKind = 'string' | 'ips' | 'portMappings' | 'bandwidth' | 'cniArgs' | 'defaultRoute';

/** NetworkSelectionElement's JSON fields and the Go type each decodes into. */
const ELEMENT_FIELDS: ReadonlyMap<string, FieldKind> = new Map<string, FieldKind>([
  ['name', 'string'],
  ['namespace', 'string'],
  ['ips', 'ips'],
  ['mac', 'string'],
  ['infiniband-guid', 'string'],
  ['interface', 'string'],
  ['interfaceRequest', 'string'],
  ['portMappings', 'portMappings'],
  ['bandwidth', 'bandwidth'],
  ['deviceID', 'string'],
  ['cni-args', 'cniArgs'],
  ['default-route', 'defaultRoute'],
]);
const PORT_MAPPING_FIELDS: ReadonlyMap<string, 'int' | 'string'> = new Map([
  ['hostPort', 'int'],
  ['containerPort', 'int'],
  ['protocol', 'string'],
  ['hostIP', 'string'],
]);
const BANDWIDTH_FIELDS: ReadonlyMap<string, 'int' | 'string'> = new Map([
  ['ingressRate', 'int'],
  ['ingressBurst', 'int'],
  ['egressRate', 'int'],
  ['egressBurst', 'int'],
]);

function byFold<T>(fields: ReadonlyMap<string, T>): ReadonlyMap<string, string> {
  return new Map([...fields.keys()].map((field) => [goFoldKey(field), field]));
}
const ELEMENT_BY_FOLD = byFold(ELEMENT_FIELDS);
const PORT_MAPPING_BY_FOLD = byFold(PORT_MAPPING_FIELDS);
const BANDWIDTH_BY_FOLD = byFold(BANDWIDTH_FIELDS);

function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isJsonObject(value)) return 'an object';
  return value instanceof JsonNumber ? `the number ${value.raw}` : typeof value;
}

/** Go's field lookup: the exact name, else the field whose name folds the same; undefined for unknown keys. */
function fieldOf(key: string, fields: ReadonlyMap<string, unknown>, byFoldName: ReadonlyMap<string, string>): string | undefined {
  return fields.has(key) ? key : byFoldName.get(goFoldKey(key));
}

function goString(value: JsonValue, at: string): Decoded<string> {
  if (value === null) return { ok: true, value: '' };
  return typeof value === 'string' ? { ok: true, value } : { ok: false, error: `${at} must be a string, found ${describe(value)}` };
}

/** A small struct (PortMapEntry, BandwidthEntry): ints and strings, nothing else. */
function checkStruct(value: JsonValue, at: string, fields: ReadonlyMap<string, 'int' | 'string'>, byFoldName: ReadonlyMap<string, string>): string | undefined {
  if (value === null) return undefined;
  if (!isJsonObject(value)) return `${at} must be an object, found ${describe(value)}`;
  const duplicate = findFoldedDuplicate(value);
  if (duplicate !== undefined) return `${at} has keys ${JSON.stringify(duplicate.first)} and ${JSON.stringify(duplicate.second)}, one field to Multus`;
  for (const [key, item] of value) {
    const field = fieldOf(key, fields, byFoldName);
    if (field === undefined || item === null) continue;
    if (fields.get(field) === 'string' && typeof item !== 'string') return `${at}.${key} must be a string, found ${describe(item)}`;
    if (fields.get(field) === 'int' && !(item instanceof JsonNumber && isGoInt64(item)))
      return `${at}.${key} must be a 64-bit integer, found ${describe(item)}`;
  }
  return undefined;
}

function checkList(value: JsonValue, at: string, item: (entry: JsonValue, where: string) => string | undefined): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return `${at} must be a list, found ${describe(value)}`;
  for (const [index, entry] of value.entries()) {
    const problem = item(entry, `${at}[${index}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Multus: an entry with "/" must parse as a CIDR, any other as an IP address. */
function checkIpRequest(entry: JsonValue, at: string): string | undefined {
  if (typeof entry !== 'string') return `${at} must be an IP address or CIDR string, found ${describe(entry)}`;
  const valid = entry.includes('/') ? isGoCIDR(entry) : isGoIP(entry);
  return valid ? undefined : `${at} ${JSON.stringify(entry)} is not ${entry.includes('/') ? 'a CIDR' : 'an IP address'}`;
}

function checkKind(kind: Exclude<FieldKind, 'string'>, value: JsonValue, at: string): string | undefined {
  switch (kind) {
    case 'ips':
      return checkList(value, at, checkIpRequest);
    case 'portMappings':
      // A null entry decodes to a nil pointer that Multus dereferences when it builds the runtime config.
      return checkList(value, at, (entry, where) =>
        entry === null ? `${where} must be an object, found null` : checkStruct(entry, where, PORT_MAPPING_FIELDS, PORT_MAPPING_BY_FOLD),
      );
    case 'bandwidth':
      return checkStruct(value, at, BANDWIDTH_FIELDS, BANDWIDTH_BY_FOLD);
    case 'cniArgs': {
      if (value === null) return undefined;
      if (!isJsonObject(value)) return `${at} must be an object, found ${describe(value)}`;
      const overflow = findFloat64Overflow(value);
      return overflow === undefined ? undefined : `${at}.${overflow.path} ${overflow.raw} does not fit a float64`;
    }
    case 'defaultRoute':
      // net.IP decodes "" and null to no address; anything else must parse.
      return checkList(value, at, (entry, where) => {
        if (entry === null || entry === '') return undefined;
        return typeof entry === 'string' && isGoIP(entry) ? undefined : `${where} ${describe(entry)} is not an IP address`;
      });
  }
}

export function decodeSelectionElement(entry: JsonValue, at: string): Decoded<SelectionElement> {
  if (!isJsonObject(entry)) return { ok: false, error: `${at} must be an object, found ${describe(entry)}` };
  const duplicate = findFoldedDuplicate(entry);
  if (duplicate !== undefined) {
    return { ok: false, error: `${at} has keys ${JSON.stringify(duplicate.first)} and ${JSON.stringify(duplicate.second)}, one field to Multus` };
  }
  const strings = new Map<string, string>();
  let ips: readonly string[] | undefined;
  for (const [key, value] of entry) {
    const field = fieldOf(key, ELEMENT_FIELDS, ELEMENT_BY_FOLD);
    if (field === undefined) continue;
    const kind = ELEMENT_FIELDS.get(field) ?? 'string';
    const where = `${at} ${JSON.stringify(key)}`;
    if (kind === 'string') {
      const text = goString(value, where);
      if (!text.ok) return text;
      strings.set(field, text.value);
      continue;
    }
    const problem = checkKind(kind, value, where);
    if (problem !== undefined) return { ok: false, error: problem };
    if (kind === 'ips') ips = Array.isArray(value) ? (value as string[]) : undefined;
  }
  const text = (field: string): string => strings.get(field) ?? '';
  for (const field of ['mac', 'infiniband-guid']) {
    if (text(field) !== '' && !isGoMac(text(field))) return { ok: false, error: `${at}: ${field} ${JSON.stringify(text(field))} is not a hardware address` };
  }
  return {
    ok: true,
    value: {
      name: text('name'),
      namespace: text('namespace'),
      interface: text('interface'),
      interfaceRequest: text('interfaceRequest'),
      mac: text('mac'),
      infinibandGUID: text('infiniband-guid'),
      deviceID: text('deviceID'),
      ips,
    },
  };
}
