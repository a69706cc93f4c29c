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
  readonly 'infiniband-guid': string;
  readonly deviceID: string;
  readonly ips: readonly string[] | undefined;
}

type StringField = Exclude<keyof SelectionElement, 'ips'>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

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

// The checks below return where and what is wrong relative to the value they were given ("[0] must be
// …", ".hostPort must be …", " must be …"); the caller prefixes its own location, so no message text is
// built for the valid input that almost every call sees.

/** A small struct (PortMapEntry, BandwidthEntry): ints and strings, nothing else. */
function checkStruct(value: JsonValue, fields: ReadonlyMap<string, 'int' | 'string'>, byFoldName: ReadonlyMap<string, string>): string | undefined {
  if (value === null) return undefined;
  if (!isJsonObject(value)) return ` must be an object, found ${describe(value)}`;
  const duplicate = findFoldedDuplicate(value);
  if (duplicate !== undefined) return ` has keys ${JSON.stringify(duplicate.first)} and ${JSON.stringify(duplicate.second)}, one field to Multus`;
  for (const [key, item] of value) {
    const field = fieldOf(key, fields, byFoldName);
    if (field === undefined || item === null) continue;
    if (fields.get(field) === 'string' && typeof item !== 'string') return `.${key} must be a string, found ${describe(item)}`;
    if (fields.get(field) === 'int' && !(item instanceof JsonNumber && isGoInt64(item))) return `.${key} must be a 64-bit integer, found ${describe(item)}`;
  }
  return undefined;
}

function checkList(value: JsonValue, item: (entry: JsonValue) => string | undefined): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return ` must be a list, found ${describe(value)}`;
  for (let index = 0; index < value.length; index += 1) {
    const problem = item(value[index] as JsonValue);
    if (problem !== undefined) return `[${index}]${problem}`;
  }
  return undefined;
}

/** Multus: an entry with "/" must parse as a CIDR, any other as an IP address. */
function checkIpRequest(entry: JsonValue): string | undefined {
  if (typeof entry !== 'string') return ` must be an IP address or CIDR string, found ${describe(entry)}`;
  const cidr = entry.includes('/');
  if (cidr ? isGoCIDR(entry) : isGoIP(entry)) return undefined;
  return ` ${JSON.stringify(entry)} is not ${cidr ? 'a CIDR' : 'an IP address'}`;
}

/** A null entry decodes to a nil pointer that Multus dereferences when it builds the runtime config. */
function checkPortMapping(entry: JsonValue): string | undefined {
  return entry === null ? ' must be an object, found null' : checkStruct(entry, PORT_MAPPING_FIELDS, PORT_MAPPING_BY_FOLD);
}

/** net.IP decodes "" and null to no address; anything else must parse. */
function checkRoute(entry: JsonValue): string | undefined {
  if (entry === null || entry === '') return undefined;
  return typeof entry === 'string' && isGoIP(entry) ? undefined : ` ${describe(entry)} is not an IP address`;
}

function checkKind(kind: Exclude<FieldKind, 'string'>, value: JsonValue): string | undefined {
  switch (kind) {
    case 'ips':
      return checkList(value, checkIpRequest);
    case 'portMappings':
      return checkList(value, checkPortMapping);
    case 'bandwidth':
      return checkStruct(value, BANDWIDTH_FIELDS, BANDWIDTH_BY_FOLD);
    case 'cniArgs': {
      if (value === null) return undefined;
      if (!isJsonObject(value)) return ` must be an object, found ${describe(value)}`;
      const overflow = findFloat64Overflow(value);
      return overflow === undefined ? undefined : `.${overflow.path} ${overflow.raw} does not fit a float64`;
    }
    case 'defaultRoute':
      return checkList(value, checkRoute);
  }
}

/** Decodes entry `index` of the annotation's list. */
/** Decodes entry `index` of the annotation's list: the element, or what is wrong with it. */
export function decodeSelectionElement(entry: JsonValue, index: number): SelectionElement | string {
  if (!isJsonObject(entry)) return `entry ${index} must be an object, found ${describe(entry)}`;
  const duplicate = findFoldedDuplicate(entry);
  if (duplicate !== undefined) return `entry ${index} has keys ${JSON.stringify(duplicate.first)} and ${JSON.stringify(duplicate.second)}, one field to Multus`;
  const element: Mutable<SelectionElement> = {
    name: '',
    namespace: '',
    interface: '',
    interfaceRequest: '',
    mac: '',
    'infiniband-guid': '',
    deviceID: '',
    ips: undefined,
  };
  for (const [key, value] of entry) {
    let field = key;
    let kind = ELEMENT_FIELDS.get(key);
    if (kind === undefined) {
      // Not spelled like a field: Go still matches it to one whose name folds the same.
      const folded = ELEMENT_BY_FOLD.get(goFoldKey(key));
      if (folded === undefined) continue;
      field = folded;
      // Stryker disable next-line StringLiteral: unreachable fallback; folded names a field of ELEMENT_FIELDS.
      kind = ELEMENT_FIELDS.get(folded) ?? 'string';
    }
    if (kind === 'string') {
      if (value === null) continue;
      if (typeof value !== 'string') return `entry ${index} ${JSON.stringify(key)} must be a string, found ${describe(value)}`;
      element[field as StringField] = value;
      continue;
    }
    const problem = checkKind(kind, value);
    if (problem !== undefined) return `entry ${index} ${JSON.stringify(key)}${problem}`;
    if (kind === 'ips') element.ips = Array.isArray(value) ? (value as string[]) : undefined;
  }
  if (element.mac !== '' && !isGoMac(element.mac)) return `entry ${index}: mac ${JSON.stringify(element.mac)} is not a hardware address`;
  const guid = element['infiniband-guid'];
  if (guid !== '' && !isGoMac(guid)) return `entry ${index}: infiniband-guid ${JSON.stringify(guid)} is not a hardware address`;
  return element;
}
