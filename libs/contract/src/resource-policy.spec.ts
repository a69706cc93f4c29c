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

describe('validateSriovResourcePolicy filters', () => {
  const withFilter = (filter: unknown) => policy({ configs: [{ resourceFilters: [filter] }] });

  it.each([
    ['a vendor ID', { vendors: ['15b3'] }, 'ok'],
    ['an uppercase vendor ID', { vendors: ['15B3'] }, 'InvalidSriovResourcePolicy'],
    ['a 3-digit device ID', { devices: ['101'] }, 'InvalidSriovResourcePolicy'],
    ['a 5-digit device ID', { devices: ['1015a'] }, 'InvalidSriovResourcePolicy'],
    ['a PCI address', { pciAddresses: ['0000:03:00.1'] }, 'ok'],
    ['a PCI address without its domain', { pfPciAddresses: ['03:00.0'] }, 'InvalidSriovResourcePolicy'],
    ['a 64-character PF name', { pfNames: ['p'.repeat(64)] }, 'ok'],
    ['a 65-character PF name', { pfNames: ['p'.repeat(65)] }, 'InvalidSriovResourcePolicy'],
    ['an empty PF name', { pfNames: [''] }, 'InvalidSriovResourcePolicy'],
    ['a PF name with a VF range', { pfNames: ['ens1f0#0-3'] }, 'UnsupportedManagedSelector'],
    ['a PF name with a hyphen', { pfNames: ['enp3s0f0-sriov'] }, 'ok'],
    ['a drivers filter', { drivers: ['mlx5_core'] }, 'UnsupportedManagedSelector'],
    ['an empty drivers list', { drivers: [] }, 'ok'],
    ['a link type', { linkType: 'ib' }, 'ok'],
    ['an unknown link type', { linkType: 'ether' }, 'InvalidSriovResourcePolicy'],
    ['an unknown filter field', { rootDevices: ['0000:03:00.0'] }, 'InvalidSriovResourcePolicy'],
  ])('%s', (_case, filter, expected) => {
    const result = validateSriovResourcePolicy(withFilter(filter));
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('names the config and filter that use an unsupported selector', () => {
    const result = validateSriovResourcePolicy(policy({ configs: [{}, { resourceFilters: [{ vendors: ['15b3'] }, { drivers: ['x'] }] }] }));
    expect(result.ok ? 'ok' : result.error.detail).toBe('configs[1].resourceFilters[1]: drivers filters are not implemented by device selection');
  });

  it.each([
    [
      'matchFields, which the driver would ignore',
      { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }] },
      'InvalidSriovResourcePolicy',
    ],
    ['a Gt expression', { nodeSelectorTerms: [{ matchExpressions: [{ key: 'example.com/gen', operator: 'Gt', values: ['3'] }] }] }, 'ok'],
    ['an unknown operator', { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Has' }] }] }, 'InvalidSriovResourcePolicy'],
    ['a null node selector', null, 'ok'],
  ])('node selector with %s', (_case, nodeSelector, expected) => {
    const result = validateSriovResourcePolicy(policy({ nodeSelector, configs: [] }));
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('returns the spec it validated', () => {
    const spec = {
      configs: [{ deviceAttributesSelector: { matchLabels: { 'sriovnetwork.openshift.io/node-policy-uid': 'u' } }, resourceFilters: [{ vendors: ['15b3'] }] }],
    };
    const result = validateSriovResourcePolicy(policy(spec));
    expect(result.ok ? result.value : result.error.message).toEqual({ name: 'rails', namespace: 'dra-driver-sriov', spec });
  });
});

describe('validateSriovResourcePolicy unsupported selectors', () => {
  it('quotes the ranged PF name and names the policy', () => {
    const result = validateSriovResourcePolicy(policy({ configs: [{ resourceFilters: [{ pfNames: ['ens1f0', 'ens1f1#0-3'] }] }] }));
    expect(result.ok ? result.value : [result.error.code, result.error.detail, result.error.object]).toEqual([
      'UnsupportedManagedSelector',
      'configs[0].resourceFilters[0]: pfNames entry "ens1f1#0-3" uses the unsupported name#first-last VF range syntax',
      { kind: 'SriovResourcePolicy', namespace: 'dra-driver-sriov', name: 'rails' },
    ]);
  });
});
