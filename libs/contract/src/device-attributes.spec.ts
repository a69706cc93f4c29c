import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateDeviceAttributes } from './device-attributes.ts';

function deviceAttributes(attributes: unknown): unknown {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'DeviceAttributes',
    metadata: { name: 'rail-a', namespace: 'dra-driver-sriov' },
    spec: { attributes },
  };
}

function outcome(value: unknown): unknown {
  const result = validateDeviceAttributes(value);
  return result.ok ? { attributes: result.value.attributes, nadReference: result.value.nadReference } : result.error.code;
}

describe('validateDeviceAttributes: names without a domain belong to the driver', () => {
  it('reads an unqualified netAttachDefName/netAttachDefNamespace pair as the template reference', () => {
    expect(outcome(deviceAttributes({ netAttachDefName: { string: 'rail-a-net' }, netAttachDefNamespace: { string: 'infra' } }))).toEqual({
      attributes: {
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' },
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'infra' },
      },
      nadReference: { name: 'rail-a-net', namespace: 'infra' },
    });
  });

  it('applies the reference rules to the unqualified form: a namespace alone is no reference', () => {
    expect(outcome(deviceAttributes({ netAttachDefNamespace: { string: 'infra' } }))).toBe('InvalidNetAttachDefReference');
  });

  it('rejects an unqualified discovery-owned key', () => {
    expect(outcome(deviceAttributes({ pciAddress: { string: '0000:03:00.1' } }))).toBe('ReservedDRAAttribute');
  });

  it('rejects a name given both bare and qualified in one object instead of keeping either', () => {
    expect(outcome(deviceAttributes({ tier: { int: 1 }, 'sriovnetwork.k8snetworkplumbingwg.io/tier': { int: 2 } }))).toBe('InvalidDeviceAttributes');
  });

  it('keeps a "__proto__" attribute as an own driver-domain key', () => {
    const parsed = JSON.parse('{"__proto__":{"string":"kept"},"example.com/x":{"int":1}}') as unknown;
    const result = validateDeviceAttributes(deviceAttributes(parsed));
    expect(result.ok && Object.entries(result.value.attributes)).toEqual([
      ['sriovnetwork.k8snetworkplumbingwg.io/__proto__', { string: 'kept' }],
      ['example.com/x', { int: 1 }],
    ]);
    expect(result.ok && Object.getPrototypeOf(result.value.attributes)).not.toEqual({ string: 'kept' });
  });
});

describe('validateDeviceAttributes: limits', () => {
  it.each([
    ['64 ASCII bytes', 'a'.repeat(64), 'ok'],
    ['65 ASCII bytes', 'a'.repeat(65), 'InvalidDeviceAttributes'],
    ['32 two-byte characters (64 bytes)', '\u00e9'.repeat(32), 'ok'],
    ['33 two-byte characters (66 bytes)', '\u00e9'.repeat(33), 'InvalidDeviceAttributes'],
    ['63 ASCII bytes and one two-byte character (65 bytes)', `${'a'.repeat(63)}\u00e9`, 'InvalidDeviceAttributes'],
    ['16 four-byte characters (64 bytes)', '\u{1f600}'.repeat(16), 'ok'],
    ['17 four-byte characters (68 bytes, 34 UTF-16 units)', '\u{1f600}'.repeat(17), 'InvalidDeviceAttributes'],
  ])('a string of %s', (_case, value, expected) => {
    const result = validateDeviceAttributes(deviceAttributes({ 'example.com/s': { string: value } }));
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('counts UTF-8 bytes in string list members too', () => {
    const result = validateDeviceAttributes(deviceAttributes({ 'example.com/s': { strings: ['ok', '\u00e9'.repeat(33)] } }));
    expect(result.ok ? 'ok' : result.error.code).toBe('InvalidDeviceAttributes');
  });

  it('accepts 32 attributes and rejects 33: no device can publish more', () => {
    const attributes = (count: number) => Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`example.com/a${index}`, { int: index }]));
    expect(outcome(deviceAttributes(attributes(32)))).not.toBe('AttributeBudgetExceeded');
    const result = validateDeviceAttributes(deviceAttributes(attributes(33)));
    expect(result.ok ? 'ok' : [result.error.code, result.error.object]).toEqual([
      'AttributeBudgetExceeded',
      { kind: 'DeviceAttributes', namespace: 'dra-driver-sriov', name: 'rail-a' },
    ]);
  });
});

describe('validateDeviceAttributes: labels', () => {
  it.each([
    ['a "__proto__" key', '{"__proto__":"a"}'],
    ['a key that is no label key', '{"rail a":"a"}'],
    ['a value over 63 characters', `{"rail":"${'a'.repeat(64)}"}`],
  ])('rejects %s rather than dropping or keeping it', (_case, labels) => {
    const value = { ...(deviceAttributes({}) as object), metadata: { name: 'rail-a', labels: JSON.parse(labels) as unknown } };
    const result = validateDeviceAttributes(value);
    expect(result.ok ? result.value.labels : result.error.code).toBe('InvalidDeviceAttributes');
  });

  it('keeps valid labels exactly', () => {
    const value = { ...(deviceAttributes({}) as object), metadata: { name: 'rail-a', labels: { 'example.com/rail': 'a', tier: '' } } };
    const result = validateDeviceAttributes(value);
    expect(result.ok ? result.value.labels : result.error.message).toEqual({ 'example.com/rail': 'a', tier: '' });
  });
});

describe('validateDeviceAttributes: garbage input', () => {
  it.each([null, undefined, 42, 'text', [], { spec: null }, { metadata: 'x' }])('%p is a typed error naming the kind', (value) => {
    const result = validateDeviceAttributes(value);
    expect(result.ok ? 'ok' : [result.error.code, result.error.object?.kind]).toEqual(['InvalidDeviceAttributes', 'DeviceAttributes']);
  });

  it('names the object when only its spec is wrong', () => {
    const result = validateDeviceAttributes(deviceAttributes([{ string: 'x' }]));
    expect(result.ok ? 'ok' : result.error.message).toContain('DeviceAttributes dra-driver-sriov/rail-a');
  });
});

describe('validateDeviceAttributes: properties', () => {
  const identifier = fc.stringMatching(/^[a-z_][a-zA-Z0-9_]{0,10}$/);
  const name = fc.oneof(
    identifier,
    identifier.map((id) => `example.com/${id}`),
    identifier.map((id) => `sriovnetwork.k8snetworkplumbingwg.io/${id}`),
    fc.constant('__proto__'),
  );
  const value = fc.oneof(
    fc.integer().map((int) => ({ int })),
    fc.boolean().map((bool) => ({ bool })),
    fc.string({ maxLength: 20 }).map((string) => ({ string })),
  );
  const qualify = (key: string) => (key.includes('/') ? key : `sriovnetwork.k8snetworkplumbingwg.io/${key}`);

  it('keeps every entry under its qualified name, or names a typed reason', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 40 }), (entries) => {
        // Built through JSON so that "__proto__" is an own key, as it is in a decoded API object.
        const attributes = JSON.parse(`{${entries.map(([key, member]) => `${JSON.stringify(key)}:${JSON.stringify(member)}`).join(',')}}`) as Record<
          string,
          unknown
        >;
        const keys = Object.keys(attributes);
        const result = validateDeviceAttributes(deviceAttributes(attributes));
        const qualified = keys.map(qualify);
        const clash = new Set(qualified).size !== qualified.length;
        const reserved = qualified.some(
          (key) =>
            /\/(vendor|deviceID|pfDeviceID|pciAddress|PFName|EswitchMode|vfID|pfPciAddress|linkType|rdmaCapable)$/.test(key) &&
            key.startsWith('sriovnetwork.k8snetworkplumbingwg.io/'),
        );
        const reference = qualified.some((key) => /^sriovnetwork\.k8snetworkplumbingwg\.io\/netAttachDef(Name|Namespace)$/.test(key));
        if (result.ok) {
          expect(Object.keys(result.value.attributes)).toEqual(qualified);
          expect(Object.values(result.value.attributes)).toEqual(keys.map((key) => attributes[key]));
        } else if (clash && reserved) {
          // Whichever the map order reaches first.
          expect(['InvalidDeviceAttributes', 'ReservedDRAAttribute']).toContain(result.error.code);
        } else if (clash) {
          expect(result.error.code).toBe('InvalidDeviceAttributes');
        } else if (reserved) {
          expect(result.error.code).toBe('ReservedDRAAttribute');
        } else if (qualified.length > 32) {
          expect(result.error.code).toBe('AttributeBudgetExceeded');
        } else {
          expect([reference, result.error.code]).toEqual([true, 'InvalidNetAttachDefReference']);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('validateDeviceAttributes: rejections', () => {
  const object = { kind: 'DeviceAttributes', namespace: 'dra-driver-sriov', name: 'rail-a' };

  it.each([
    [
      'a name that is no attribute name',
      { 'a b': { int: 1 } },
      'InvalidDeviceAttributes',
      'attribute name "a b" is not <domain>/<C identifier> or a C identifier',
    ],
    [
      'one name spelled bare and qualified',
      { tier: { int: 1 }, 'sriovnetwork.k8snetworkplumbingwg.io/tier': { int: 2 } },
      'InvalidDeviceAttributes',
      'attributes "tier" and "sriovnetwork.k8snetworkplumbingwg.io/tier" are both sriovnetwork.k8snetworkplumbingwg.io/tier',
    ],
    [
      'a bare discovery-owned name, shown with its qualified form',
      { pciAddress: { string: '0000:03:00.1' } },
      'ReservedDRAAttribute',
      'attribute "pciAddress" (sriovnetwork.k8snetworkplumbingwg.io/pciAddress) is published by hardware discovery',
    ],
    [
      'a qualified discovery-owned name, shown once',
      { 'sriovnetwork.k8snetworkplumbingwg.io/pciAddress': { string: '0000:03:00.1' } },
      'ReservedDRAAttribute',
      'attribute "sriovnetwork.k8snetworkplumbingwg.io/pciAddress" is published by hardware discovery',
    ],
    [
      'a bad value under a bare name',
      { tier: { int: 1.5 } },
      'InvalidDeviceAttributes',
      'attribute "tier" (sriovnetwork.k8snetworkplumbingwg.io/tier): int: must be an integer within ±(2^53-1)',
    ],
    [
      'a value without a member under a qualified name',
      { 'example.com/tier': {} },
      'InvalidDeviceAttributes',
      'attribute "example.com/tier": must set exactly one value member',
    ],
  ])('says what is wrong with %s and names the object', (_case, attributes, code, detail) => {
    const result = validateDeviceAttributes(deviceAttributes(attributes));
    expect(result.ok ? result.value : [result.error.code, result.error.detail, result.error.object]).toEqual([code, detail, object]);
  });
});
