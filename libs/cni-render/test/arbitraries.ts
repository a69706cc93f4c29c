import fc from 'fast-check';
import { JsonNumber, type JsonObject, type JsonValue } from '@sriov-dra/contract';
import { PLUGIN_FIELD_TABLES } from '../src/plugin-fields.ts';

/** JSON numbers as a person might write them, including ones float64 cannot hold exactly. */
const numberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.integer().map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.nat({ max: 9999 }), fc.constantFrom('', 'e3', 'E-2', 'e+10')).map(([i, f, e]) => `${i}.${f}${e}`),
  fc.constantFrom('0', '-0', '1.0', '0.1'),
);

const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', '1', '0', 'ipam', 'type'));

/** Arbitrary JSON values in the lossless representation; `keyOf` gives the identity object keys must not share. */
function jsonValues(numbers: fc.Arbitrary<string>, keys: fc.Arbitrary<string>, keyOf: (key: string) => string): fc.Arbitrary<JsonValue> {
  return fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.string({ maxLength: 16 }),
      numbers.map((raw) => new JsonNumber(raw)),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.uniqueArray(fc.tuple(keys, tie('value')), { maxLength: 4, selector: ([k]) => keyOf(k) }).map((entries) => new Map(entries)),
    ),
  })).value;
}

/** Arbitrary JSON values with unique keys, numbers beyond float64's range included. */
export const jsonValue: fc.Arbitrary<JsonValue> = jsonValues(fc.oneof(numberText, fc.constant('1e400')), key, (k) => k);

/**
 * The keys Go's encoding/json tells apart: it matches struct fields case-insensitively (keys here are
 * ASCII, where its folding is plain uppercasing), so a CNI configuration must not hold two keys that
 * differ only in case, nor another spelling of a field some CNI reader decodes. Extensions also stay
 * clear of the typed fields of the sriov and tuning plugins, whose values must have their Go types.
 */
const goKeyOf = (k: string): string => k.toUpperCase();
const cniFields = new Set(
  [
    'cniVersion',
    'cniVersions',
    'name',
    'type',
    'plugins',
    'ipam',
    'dns',
    'capabilities',
    'prevResult',
    'deviceID',
    'pciBusID',
    'disableCheck',
    'disableGC',
    'loadOnlyInlinedPlugins',
    'node_slice_size',
    'nameservers',
    'domain',
    'search',
    'options',
    ...[...PLUGIN_FIELD_TABLES.values()].flatMap((fields) => [...fields.keys()]),
  ].map(goKeyOf),
);
const extensionKey = key.filter((k) => !cniFields.has(goKeyOf(k)));
/** Values of plugin extensions a Go reader decodes as we do: keys unique under folding, numbers within float64. */
const extensionValue = jsonValues(numberText, extensionKey, goKeyOf);

const cleanExtras = fc.uniqueArray(fc.tuple(extensionKey, extensionValue), { maxLength: 5, selector: ([k]) => goKeyOf(k) });

const ipam: fc.Arbitrary<JsonObject> = fc
  .tuple(fc.constantFrom('host-local', 'whereabouts', 'static'), cleanExtras)
  .map(([type, extras]) => new Map<string, JsonValue>([['type', type], ...extras.filter(([k]) => k.toLowerCase() !== 'node_slice_size')]));

/** Valid source templates: single sriov plugin or sriov + tuning conflists, with arbitrary extensions. */
export const sourceConfig: fc.Arbitrary<JsonObject> = fc
  .record({
    version: fc.constantFrom('0.4.0', '1.0.0', '1.1.0'),
    name: fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,20}$/), { nil: undefined }),
    conflist: fc.boolean(),
    sriovExtras: cleanExtras,
    tunings: fc.array(cleanExtras, { maxLength: 2 }),
    ipam,
    rootExtras: cleanExtras,
  })
  .map(({ version, name, conflist, sriovExtras, tunings, ipam: ipamConfig, rootExtras }) => {
    const sriov: JsonObject = new Map<string, JsonValue>([['type', 'sriov'], ...sriovExtras, ['ipam', ipamConfig]]);
    const root: JsonObject = new Map<string, JsonValue>([['cniVersion', version]]);
    if (name !== undefined) root.set('name', name);
    for (const [k, v] of rootExtras) root.set(k, v);
    if (conflist) root.set('plugins', [sriov, ...tunings.map((extras) => new Map<string, JsonValue>([['type', 'tuning'], ...extras]))]);
    else {
      // One object now: a sriov extension one fold away from a root extension would be a duplicate to Go.
      const taken = new Set([...root.keys()].map(goKeyOf));
      for (const [k, v] of sriov) if (!taken.has(goKeyOf(k))) root.set(k, v);
    }
    return root;
  });

export const pciAddress = fc
  .tuple(fc.nat({ max: 0xffff }), fc.nat({ max: 0xff }), fc.nat({ max: 0x1f }), fc.nat({ max: 7 }))
  .map(
    ([domain, bus, device, fn]) => `${domain.toString(16).padStart(4, '0')}:${bus.toString(16).padStart(2, '0')}:${device.toString(16).padStart(2, '0')}.${fn}`,
  );
