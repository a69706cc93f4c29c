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

  it.each([null, 42, 'x', [], { attributes: null }, { attributes: [] }, { attributes: 'x' }])('rejects %p with a typed error naming the policy', (value) => {
    const result = validateNodePolicyDra(value, policy);
    expect(result.ok ? 'ok' : [result.error.code, result.error.object]).toEqual(['InvalidDRAAttribute', policy]);
  });
});
