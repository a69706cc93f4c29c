import { describe, expect, it } from '@jest/globals';
import { validateNodePolicyDra } from './node-policy-dra.ts';

const policy = { kind: 'SriovNetworkNodePolicy', namespace: 'sriov-network-operator', name: 'rail-a' };

function outcome(value: unknown): unknown {
  const result = validateNodePolicyDra(value, policy);
  return result.ok ? result.value : result.error.code;
}

describe('validateNodePolicyDra', () => {
  it('rejects a "__proto__" key as unqualified instead of dropping it', () => {
    expect(outcome(JSON.parse('{"attributes":{"__proto__":{"string":"a"}}}'))).toBe('InvalidDRAAttribute');
  });

  it('does not let a "__proto__" key hide among valid ones', () => {
    expect(outcome(JSON.parse('{"attributes":{"example.com/a":{"int":1},"__proto__":{"int":2}}}'))).toBe('InvalidDRAAttribute');
  });

  it.each([
    ['64 bytes', '\u00e9'.repeat(32), 'ok'],
    ['66 bytes in 33 characters', '\u00e9'.repeat(33), 'InvalidDRAAttribute'],
    ['65 bytes', `${'a'.repeat(63)}\u00e9`, 'InvalidDRAAttribute'],
  ])('counts string limits in UTF-8 bytes: %s', (_case, value, expected) => {
    const result = validateNodePolicyDra({ attributes: { 'example.com/s': { string: value } } }, policy);
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('returns the custom attributes and reference it was given, keys and values intact', () => {
    expect(
      outcome({
        attributes: {
          'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' },
          'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'sriov-network-operator' },
          'example.com/tier': { int: 0 },
          'example.com/fast': { bool: false },
        },
      }),
    ).toEqual({
      customAttributes: { 'example.com/tier': { int: 0 }, 'example.com/fast': { bool: false } },
      sriovNetwork: { name: 'rail-a-net', namespace: 'sriov-network-operator' },
    });
  });

  it.each([
    [null, 'spec.dra'],
    [42, 'spec.dra'],
    ['x', 'spec.dra'],
    [[], 'spec.dra'],
    [{ attributes: null }, 'spec.dra.attributes'],
    [{ attributes: [] }, 'spec.dra.attributes'],
    [{ attributes: 'x' }, 'spec.dra.attributes'],
  ])('rejects %p with a typed error naming the policy and the field %s', (value, field) => {
    const result = validateNodePolicyDra(value, policy);
    expect(result.ok ? 'ok' : [result.error.code, result.error.object]).toEqual(['InvalidDRAAttribute', { ...policy, field }]);
  });
});

describe('validateNodePolicyDra boundaries', () => {
  const NAME = 'sriovnetwork.openshift.io/sriovNetworkName';
  const NAMESPACE = 'sriovnetwork.openshift.io/sriovNetworkNamespace';
  const many = (count: number) => Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`example.com/a${index}`, { int: index }]));

  it.each([
    // The generated DeviceAttributes adds resourceName, and turns the reference pair into the NAD pair.
    ['31 custom attributes', many(31), 'ok'],
    ['32 custom attributes', many(32), 'InvalidDRAAttribute'],
    ['33 custom attributes', many(33), 'InvalidDRAAttribute'],
    ['29 custom attributes and the reference pair', { ...many(29), [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'ns' } }, 'ok'],
    ['30 custom attributes and the reference pair', { ...many(30), [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'ns' } }, 'InvalidDRAAttribute'],
    ['a 63-character domain', { [`${'a'.repeat(63)}/x`]: { int: 1 } }, 'ok'],
    ['a 64-character domain', { [`${'a'.repeat(64)}/x`]: { int: 1 } }, 'InvalidDRAAttribute'],
    ['a 32-character identifier', { [`example.com/${'x'.repeat(32)}`]: { int: 1 } }, 'ok'],
    ['a 33-character identifier', { [`example.com/${'x'.repeat(33)}`]: { int: 1 } }, 'InvalidDRAAttribute'],
    ['a 64-byte version', { 'example.com/v': { version: `1.0.0-${'a'.repeat(58)}` } }, 'ok'],
    ['a 65-byte version', { 'example.com/v': { version: `1.0.0-${'a'.repeat(59)}` } }, 'InvalidDRAAttribute'],
    ['the largest safe integer', { 'example.com/i': { int: Number.MAX_SAFE_INTEGER } }, 'ok'],
    ['an integer past 2^53', { 'example.com/i': { int: Number.MAX_SAFE_INTEGER + 1 } }, 'InvalidDRAAttribute'],
    ['a 64-character SriovNetwork name', { [NAME]: { string: 'a'.repeat(64) }, [NAMESPACE]: { string: 'ns' } }, 'ok'],
    ['a 65-character SriovNetwork name', { [NAME]: { string: 'a'.repeat(65) }, [NAMESPACE]: { string: 'ns' } }, 'InvalidSriovNetworkReference'],
    ['a 63-character SriovNetwork namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'a'.repeat(63) } }, 'ok'],
    ['a 64-character SriovNetwork namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'a'.repeat(64) } }, 'InvalidSriovNetworkReference'],
    ['an empty SriovNetwork namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: '' } }, 'InvalidSriovNetworkReference'],
    ['an empty SriovNetwork name', { [NAME]: { string: '' }, [NAMESPACE]: { string: 'ns' } }, 'InvalidSriovNetworkReference'],
    ['a SriovNetwork name as a version', { [NAME]: { version: '1.0.0' }, [NAMESPACE]: { string: 'ns' } }, 'InvalidSriovNetworkReference'],
    ['a reference value with two members', { [NAME]: { string: 'n', int: 1 }, [NAMESPACE]: { string: 'ns' } }, 'InvalidSriovNetworkReference'],
    ['only the SriovNetwork namespace', { [NAMESPACE]: { string: 'ns' } }, 'IncompleteSriovNetworkReference'],
    ['only the SriovNetwork name', { [NAME]: { string: 'n' } }, 'IncompleteSriovNetworkReference'],
    ['the NAD name output key', { 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'n' } }, 'ReservedDRAAttribute'],
    ['the NAD namespace output key', { 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'n' } }, 'ReservedDRAAttribute'],
    ['the compatibility resourceName', { 'k8s.cni.cncf.io/resourceName': { string: 'x' } }, 'ReservedDRAAttribute'],
    ['the discovered PCI address', { 'sriovnetwork.k8snetworkplumbingwg.io/pciAddress': { string: '0000:03:00.1' } }, 'ReservedDRAAttribute'],
    ['the discovered PCIe root', { 'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' } }, 'ReservedDRAAttribute'],
    ['the discovered NUMA node', { 'dra.net/numaNode': { int: 0 } }, 'ReservedDRAAttribute'],
    ['a look-alike of a reserved key in another domain', { 'example.com/pciAddress': { string: 'x' } }, 'ok'],
  ])('%s', (_case, attributes, expected) => {
    const result = validateNodePolicyDra({ attributes }, policy);
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('keeps the reference out of the custom attributes it publishes', () => {
    const result = validateNodePolicyDra({ attributes: { ...many(2), [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'ns' } } }, policy);
    expect(result.ok ? Object.keys(result.value.customAttributes) : result.error.message).toEqual(['example.com/a0', 'example.com/a1']);
  });

  it('reads an omitted attributes map as no attributes', () => {
    expect(outcome({})).toEqual({ customAttributes: {}, sriovNetwork: null });
  });
});

describe('validateNodePolicyDra rejections', () => {
  const NAME = 'sriovnetwork.openshift.io/sriovNetworkName';
  const NAMESPACE = 'sriovnetwork.openshift.io/sriovNetworkNamespace';
  const at = (key: string): string => `spec.dra.attributes[${JSON.stringify(key)}]`;

  it.each([
    ['only the SriovNetwork name', { [NAME]: { string: 'n' } }, 'IncompleteSriovNetworkReference', `${NAMESPACE} is missing`, at(NAME)],
    ['only the SriovNetwork namespace', { [NAMESPACE]: { string: 'ns' } }, 'IncompleteSriovNetworkReference', `${NAME} is missing`, at(NAMESPACE)],
    [
      'a SriovNetwork name as a bool',
      { [NAME]: { bool: true }, [NAMESPACE]: { string: 'ns' } },
      'InvalidSriovNetworkReference',
      'both reference keys must be string values',
      at(NAME),
    ],
    [
      'a SriovNetwork namespace as an int',
      { [NAME]: { string: 'n' }, [NAMESPACE]: { int: 1 } },
      'InvalidSriovNetworkReference',
      'both reference keys must be string values',
      at(NAMESPACE),
    ],
    [
      'an uppercase SriovNetwork name',
      { [NAME]: { string: 'Rail' }, [NAMESPACE]: { string: 'ns' } },
      'InvalidSriovNetworkReference',
      'SriovNetwork name "Rail" is not an object name of at most 64 characters',
      `${at(NAME)}.string`,
    ],
    [
      'a dotted SriovNetwork namespace',
      { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'in.fra' } },
      'InvalidSriovNetworkReference',
      'SriovNetwork namespace "in.fra" is not a namespace name',
      `${at(NAMESPACE)}.string`,
    ],
    [
      'a 65-character SriovNetwork name',
      { [NAME]: { string: 'a'.repeat(65) }, [NAMESPACE]: { string: 'ns' } },
      'InvalidSriovNetworkReference',
      'must be at most 64 bytes in UTF-8',
      `${at(NAME)}.string`,
    ],
    [
      'an unqualified key',
      { bad: { int: 1 } },
      'InvalidDRAAttribute',
      'key "bad" is not <DNS subdomain of at most 63>/<C identifier of at most 32>',
      at('bad'),
    ],
    [
      'a discovery-owned key',
      { 'dra.net/numaNode': { int: 0 } },
      'ReservedDRAAttribute',
      'key dra.net/numaNode is owned by discovery or generated by the operator',
      at('dra.net/numaNode'),
    ],
    ['a fractional int', { 'example.com/a': { int: 1.5 } }, 'InvalidDRAAttribute', 'must be an integer within ±(2^53-1)', `${at('example.com/a')}.int`],
    [
      '33 custom attributes',
      Object.fromEntries(Array.from({ length: 33 }, (_unused, index) => [`example.com/a${index}`, { int: index }])),
      'InvalidDRAAttribute',
      '33 attributes exceed the limit of 32',
      'spec.dra.attributes',
    ],
    [
      '32 custom attributes',
      Object.fromEntries(Array.from({ length: 32 }, (_unused, index) => [`example.com/a${index}`, { int: index }])),
      'InvalidDRAAttribute',
      '32 custom attributes, the generated k8s.cni.cncf.io/resourceName make 33 attributes, over the per-device limit of 32',
      'spec.dra.attributes',
    ],
    [
      '30 custom attributes and the reference pair',
      {
        ...Object.fromEntries(Array.from({ length: 30 }, (_unused, index) => [`example.com/a${index}`, { int: index }])),
        [NAME]: { string: 'n' },
        [NAMESPACE]: { string: 'ns' },
      },
      'InvalidDRAAttribute',
      '30 custom attributes, the generated k8s.cni.cncf.io/resourceName and the sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName/' +
        'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace pair the SriovNetwork reference becomes make 33 attributes, over the per-device limit of 32',
      'spec.dra.attributes',
    ],
  ])('says what is wrong with %s and names the policy and field', (_case, attributes, code, detail, field) => {
    const result = validateNodePolicyDra({ attributes }, policy);
    expect(result.ok ? result.value : [result.error.code, result.error.detail, result.error.object]).toEqual([code, detail, { ...policy, field }]);
  });

  it('says how many attributes to remove to fit the generated object', () => {
    const result = validateNodePolicyDra({
      attributes: Object.fromEntries(Array.from({ length: 32 }, (_unused, index) => [`example.com/a${index}`, { int: index }])),
    });
    expect(result.ok ? result.value : result.error.remedy).toBe(
      'remove 1 attribute(s): spec.dra.attributes fits at most 31 entries, the two SriovNetwork reference keys included',
    );
  });

  it('names a SriovNetworkNodePolicy and the field when no object is given', () => {
    const result = validateNodePolicyDra({ attributes: { bad: { int: 1 } } });
    expect(result.ok ? result.value : result.error.object).toEqual({ kind: 'SriovNetworkNodePolicy', field: 'spec.dra.attributes["bad"]' });
  });
});
