import fc from 'fast-check';
import { JsonNumber, type JsonObject, type JsonValue } from '@sriov-dra/contract';

/** JSON numbers as a person might write them, including ones float64 cannot hold exactly. */
const numberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.integer().map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.nat({ max: 9999 }), fc.constantFrom('', 'e3', 'E-2', 'e+10')).map(([i, f, e]) => `${i}.${f}${e}`),
  fc.constantFrom('0', '-0', '1.0', '1e400', '0.1'),
);

const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', '1', '0', 'ipam', 'type'));

/** Arbitrary JSON values in the lossless representation, with unique keys. */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.string({ maxLength: 16 }),
    numberText.map((raw) => new JsonNumber(raw)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: ([k]) => k }).map((entries) => new Map(entries)),
  ),
})).value;

/** Values every Go reader decodes alike: numbers within float64 range, no two keys equal but for case. */
const goDecodableValue: fc.Arbitrary<JsonValue> = jsonValue.filter(function unambiguous(value: JsonValue): boolean {
  if (value instanceof JsonNumber) return Number.isFinite(Number(value.raw));
  if (Array.isArray(value)) return value.every(unambiguous);
  if (!(value instanceof Map)) return true;
  return new Set([...value.keys()].map((k) => k.toLowerCase())).size === value.size && [...value.values()].every(unambiguous);
});
// Extension keys are ASCII here, so Go's case folding is plain case-insensitivity: no extension may
// spell, in any case, a field some CNI reader decodes.
const reserved = new Set(
  [
    'type',
    'plugins',
    'name',
    'cniVersion',
    'cniVersions',
    'deviceID',
    'pciBusID',
    'ipam',
    'dns',
    'capabilities',
    'prevResult',
    'disableCheck',
    'disableGC',
    'loadOnlyInlinedPlugins',
  ].map((k) => k.toLowerCase()),
);
const extraFields = fc.uniqueArray(fc.tuple(key, goDecodableValue), { maxLength: 5, selector: ([k]) => k.toLowerCase() });
const cleanExtras = extraFields.map((entries) => entries.filter(([k]) => !reserved.has(k.toLowerCase())));

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
    else for (const [k, v] of sriov) root.set(k, v);
    return root;
  });

export const pciAddress = fc
  .tuple(fc.nat({ max: 0xffff }), fc.nat({ max: 0xff }), fc.nat({ max: 0x1f }), fc.nat({ max: 7 }))
  .map(
    ([domain, bus, device, fn]) => `${domain.toString(16).padStart(4, '0')}:${bus.toString(16).padStart(2, '0')}:${device.toString(16).padStart(2, '0')}.${fn}`,
  );
