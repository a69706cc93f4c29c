import { describe, expect, it } from '@jest/globals';
import { validateSriovResourcePolicy } from './resource-policy.ts';

function policy(spec: unknown): unknown {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'SriovResourcePolicy',
    metadata: { name: 'rails', namespace: 'dra-driver-sriov' },
    spec,
  };
}

describe('validateSriovResourcePolicy', () => {
  it('names the policy when its spec is malformed', () => {
    const result = validateSriovResourcePolicy(policy({ configs: [{ resourceFilters: [{ vendors: ['15B3'] }] }] }));
    expect(result.ok ? 'ok' : [result.error.code, result.error.object]).toEqual([
      'InvalidSriovResourcePolicy',
      { kind: 'SriovResourcePolicy', namespace: 'dra-driver-sriov', name: 'rails' },
    ]);
  });

  it('rejects a "__proto__" matchLabels key instead of dropping it, which would widen the selector to everything', () => {
    const selector = JSON.parse('{"matchLabels":{"__proto__":"rail-a"}}') as unknown;
    const result = validateSriovResourcePolicy(policy({ configs: [{ deviceAttributesSelector: selector }] }));
    expect(result.ok ? result.value.spec.configs?.[0]?.deviceAttributesSelector : result.error.code).toBe('InvalidSriovResourcePolicy');
  });

  it.each([
    ['a label value over 63 characters', { matchLabels: { rail: 'a'.repeat(64) } }],
    ['an invalid label key', { matchLabels: { 'rail a': 'a' } }],
    ['an invalid expression key', { matchExpressions: [{ key: '-rail', operator: 'Exists' }] }],
    ['an expression value over 63 characters', { matchExpressions: [{ key: 'rail', operator: 'In', values: ['a'.repeat(64)] }] }],
  ])('rejects %s in a deviceAttributesSelector', (_case, selector) => {
    const result = validateSriovResourcePolicy(policy({ configs: [{ deviceAttributesSelector: selector }] }));
    expect(result.ok ? 'ok' : result.error.code).toBe('InvalidSriovResourcePolicy');
  });

  it.each([null, undefined, 7, 'x', [], { metadata: null }])('returns a typed error for %p', (value) => {
    const result = validateSriovResourcePolicy(value);
    expect(result.ok ? 'ok' : [result.error.code, result.error.object?.kind]).toEqual(['InvalidSriovResourcePolicy', 'SriovResourcePolicy']);
  });
});
