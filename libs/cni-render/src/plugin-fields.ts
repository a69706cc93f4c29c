import { type JsonObject, type JsonValue, JsonNumber, isJsonObject } from '@sriov-dra/contract';
import { goFoldKey } from './go-json.ts';

/**
 * The typed fields of the plugins a shadow runs, as their Go config structs declare them (sriov-cni's
 * NetConf, the tuning plugin's TuningConf of containernetworking/plugins v1.10.0). encoding/json refuses
 * a value of another JSON type for a typed field (a string for an int, 9000.0 for an int), so the plugin
 * would fail at ADD; such a template is refused before any VF is touched. Untagged Go fields are matched
 * by their Go name, case-insensitively like every field. null is always accepted: it leaves a field unset.
 */
type FieldType = 'string' | 'int' | 'uint32' | 'bool' | 'stringMap' | { readonly struct: FieldTable };
type FieldTable = ReadonlyMap<string, FieldType>;

function table(fields: Record<string, FieldType>): FieldTable {
  return new Map(Object.entries(fields));
}

const RUNTIME_CONFIG: FieldType = { struct: table({ mac: 'string' }) };

const SRIOV_FIELDS = table({
  OrigVfState: {
    struct: table({
      HostIFName: 'string',
      SpoofChk: 'bool',
      Trust: 'bool',
      AdminMAC: 'string',
      EffectiveMAC: 'string',
      Vlan: 'int',
      VlanQoS: 'int',
      VlanProto: 'int',
      MinTxRate: 'int',
      MaxTxRate: 'int',
      LinkState: 'uint32',
      MTU: 'int',
    }),
  },
  Master: 'string',
  MAC: 'string',
  MTU: 'int',
  vlan: 'int',
  vlanQoS: 'int',
  vlanProto: 'string',
  deviceID: 'string',
  VFID: 'int',
  min_tx_rate: 'int',
  max_tx_rate: 'int',
  spoofchk: 'string',
  trust: 'string',
  link_state: 'string',
  runtimeConfig: RUNTIME_CONFIG,
  logLevel: 'string',
  logFile: 'string',
});

const TUNING_FIELDS = table({
  dataDir: 'string',
  sysctl: 'stringMap',
  mac: 'string',
  promisc: 'bool',
  mtu: 'int',
  txQLen: 'int',
  allmulti: 'bool',
  runtimeConfig: RUNTIME_CONFIG,
  args: {
    struct: table({
      cni: { struct: table({ sysctl: 'stringMap', mac: 'string', promisc: 'bool', mtu: 'int', allmulti: 'bool', txQLen: 'int' }) },
    }),
  },
});

/** The field tables of the plugins a shadow may run, by plugin type. */
export const PLUGIN_FIELD_TABLES: ReadonlyMap<string, FieldTable> = new Map([
  ['sriov', SRIOV_FIELDS],
  ['tuning', TUNING_FIELDS],
]);

interface FoldIndex {
  readonly lengths: ReadonlySet<number>;
  readonly byFold: ReadonlyMap<string, FieldType>;
}
const foldIndexes = new WeakMap<FieldTable, FoldIndex>();

/** Go's field lookup: the exact name, else the field whose name folds the same (folding keeps lengths). */
function fieldType(fields: FieldTable, key: string): FieldType | undefined {
  const exact = fields.get(key);
  // A shortcut: the exact name also folds to its own field.
  if (exact !== undefined) return exact;
  let index = foldIndexes.get(fields);
  if (index === undefined) {
    index = {
      lengths: new Set([...fields.keys()].map((field) => field.length)),
      byFold: new Map([...fields].map(([field, type]) => [goFoldKey(field), type])),
    };
    foldIndexes.set(fields, index);
  }
  return index.lengths.has(key.length) ? index.byFold.get(goFoldKey(key)) : undefined;
}

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'a list';
  if (isJsonObject(value)) return 'an object';
  return value instanceof JsonNumber ? `the number ${value.raw}` : typeof value;
}

/**
 * Whether the plugin receives an integer in [min, max). libcni hands each plugin its configuration
 * re-encoded from map[string]interface{}: the number became a float64 and is written back by Go's
 * formatter, so 1.0 and 1E+2 arrive as 1 and 100, while 9223372036854775807 arrives as the float64
 * 2^63, one past the int64 range. (Go writes integers from 1e21 up with an exponent, which no integer
 * field takes, but those are far outside every range checked here.)
 */
function deliveredInteger(number: JsonNumber, min: number, max: number): boolean {
  const value = Number(number.raw);
  return Number.isInteger(value) && value >= min && value < max;
}

function wrongType(value: JsonValue, type: FieldType): string | undefined {
  if (value === null) return undefined;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : `must be a string, found ${describe(value)}`;
    case 'bool':
      return typeof value === 'boolean' ? undefined : `must be true or false, found ${describe(value)}`;
    case 'int':
      return value instanceof JsonNumber && deliveredInteger(value, -(2 ** 63), 2 ** 63) ? undefined : `must be a 64-bit integer, found ${describe(value)}`;
    case 'uint32':
      return value instanceof JsonNumber && deliveredInteger(value, 0, 2 ** 32) ? undefined : `must be an unsigned 32-bit integer, found ${describe(value)}`;
    case 'stringMap':
      if (!isJsonObject(value)) return `must be an object of strings, found ${describe(value)}`;
      for (const [key, item] of value) if (item !== null && typeof item !== 'string') return `.${key} must be a string, found ${describe(item)}`;
      return undefined;
    default: {
      if (!isJsonObject(value)) return `must be an object, found ${describe(value)}`;
      const nested = wrongField(value, type.struct);
      return nested === undefined ? undefined : `.${nested}`;
    }
  }
}

/** The first field of the object whose value the plugin's Go struct cannot hold, as "key: problem". */
export function wrongField(object: JsonObject, fields: FieldTable): string | undefined {
  for (const [key, value] of object) {
    const type = fieldType(fields, key);
    if (type === undefined) continue;
    const problem = wrongType(value, type);
    if (problem !== undefined) return problem.startsWith('.') ? `${key}${problem}` : `${key} ${problem}`;
  }
  return undefined;
}
