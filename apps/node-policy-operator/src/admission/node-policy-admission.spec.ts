import { describe, expect, it } from '@jest/globals';
import { describeErrorCode } from '@sriov-dra/contract';
import { admitNodePolicy } from './node-policy-admission.ts';

const OPTIONS = { operatorNamespace: 'sriov-network-operator' };
const NAME = 'sriovnetwork.openshift.io/sriovNetworkName';
const NAMESPACE = 'sriovnetwork.openshift.io/sriovNetworkNamespace';

function policy(namespace: string, name: string, spec: unknown): { metadata: { name: string; namespace: string }; spec: unknown } {
  return { metadata: { name, namespace }, spec };
}

const findings = (spec: unknown, namespace = 'team-a', name = 'rail-a') => admitNodePolicy(policy(namespace, name, spec), OPTIONS);
const located = (dra: unknown) => findings({ dra }).map((finding) => [finding.code, finding.field]);

describe('admitNodePolicy: the default bootstrap policy', () => {
  it.each([
    ['an empty spec.dra', {}],
    ['an empty attribute map', { attributes: {} }],
    ['attributes', { attributes: { 'example.com/x': { int: 1 } } }],
  ])('refuses %s on the default policy in the operator namespace, at spec.dra, saying what to do', (_label, dra) => {
    expect(findings({ dra }, 'sriov-network-operator', 'default')).toEqual([
      {
        code: 'DRABlockOnDefaultPolicy',
        field: 'spec.dra',
        message: `DRABlockOnDefaultPolicy: the operator's bootstrap policy sriov-network-operator/default sets spec.dra \u2014 ${describeErrorCode('DRABlockOnDefaultPolicy').remedy}`,
      },
    ]);
  });

  it.each([
    ['without spec', undefined],
    ['without spec.dra', {}],
    ['with a null spec.dra (Go: nil)', { dra: null }],
  ])('admits the default policy %s', (_label, spec) => {
    expect(findings(spec, 'sriov-network-operator', 'default')).toEqual([]);
  });

  it('admits spec.dra on a policy named default elsewhere, and on other policies in the operator namespace', () => {
    expect(findings({ dra: {} }, 'team-a', 'default')).toEqual([]);
    expect(findings({ dra: {} }, 'sriov-network-operator', 'default-rail')).toEqual([]);
  });

  it('reports an invalid spec.dra on the default policy as well', () => {
    expect(findings({ dra: { attributes: { tier: { int: 1 } } } }, 'sriov-network-operator', 'default').map((finding) => finding.code)).toEqual([
      'DRABlockOnDefaultPolicy',
      'InvalidDRAAttribute',
    ]);
  });
});

describe('admitNodePolicy: the fields of spec.dra findings', () => {
  it('reports every faulty key at its own field, in map order, leaving the valid ones alone', () => {
    const found = findings({ dra: { attributes: { 'example.com/ok': { int: 1 }, 'example.com/bad': { int: 1, bool: true }, worse: { int: 1 } } } });
    expect(found.map((finding) => [finding.field, finding.message])).toEqual([
      [
        'spec.dra.attributes["example.com/bad"]',
        `InvalidDRAAttribute: must set exactly one value member \u2014 ${describeErrorCode('InvalidDRAAttribute').remedy}`,
      ],
      [
        'spec.dra.attributes["worse"]',
        `InvalidDRAAttribute: key "worse" is not <DNS subdomain of at most 63>/<C identifier of at most 32> \u2014 ${describeErrorCode('InvalidDRAAttribute').remedy}`,
      ],
    ]);
  });

  it.each([
    ['an unqualified key', { attributes: { tier: { int: 1 } } }, [['InvalidDRAAttribute', 'spec.dra.attributes["tier"]']]],
    [
      'a reserved key',
      { attributes: { 'resource.kubernetes.io/pcieRoot': { string: 'x' } } },
      [['ReservedDRAAttribute', 'spec.dra.attributes["resource.kubernetes.io/pcieRoot"]']],
    ],
    ['the lone reference key', { attributes: { [NAMESPACE]: { string: 'ns' } } }, [['IncompleteSriovNetworkReference', `spec.dra.attributes["${NAMESPACE}"]`]]],
    [
      'an overlong reference name',
      { attributes: { [NAME]: { string: 'a'.repeat(65) }, [NAMESPACE]: { string: 'ns' } } },
      [['InvalidSriovNetworkReference', `spec.dra.attributes["${NAME}"].string`]],
    ],
    [
      'a reference name that is no object name',
      { attributes: { [NAME]: { string: 'Not_A_Name' }, [NAMESPACE]: { string: 'ns' } } },
      [['InvalidSriovNetworkReference', `spec.dra.attributes["${NAME}"].string`]],
    ],
    [
      'too many attributes',
      { attributes: Object.fromEntries(Array.from({ length: 33 }, (_u, i) => [`example.com/a${i}`, { int: i }])) },
      [['InvalidDRAAttribute', 'spec.dra.attributes']],
    ],
    // With the resourceName the operator generates, 32 custom attributes make a DeviceAttributes of 33.
    [
      'more attributes than the generated object fits',
      { attributes: Object.fromEntries(Array.from({ length: 32 }, (_u, i) => [`example.com/a${i}`, { int: i }])) },
      [['InvalidDRAAttribute', 'spec.dra.attributes']],
    ],
    [
      'an unknown member of spec.dra beside a bad key',
      { attributes: { tier: { int: 1 } }, labels: {} },
      [
        ['InvalidDRAAttribute', 'spec.dra.labels'],
        ['InvalidDRAAttribute', 'spec.dra.attributes["tier"]'],
      ],
    ],
    ['attributes that are no map', { attributes: [] }, [['InvalidDRAAttribute', 'spec.dra.attributes']]],
    ['a spec.dra that is no object', 'yes', [['InvalidDRAAttribute', 'spec.dra']]],
  ])('%s', (_label, dra, expected) => {
    expect(located(dra)).toEqual(expected);
  });

  // Keys the operator writes into the generated DeviceAttributes itself: a manual value would be overwritten or combined.
  it.each([
    'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName',
    'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace',
    'k8s.cni.cncf.io/resourceName',
  ])('refuses the generated key %s as reserved, at its own field', (key) => {
    expect(located({ attributes: { 'example.com/tier': { int: 1 }, [key]: { string: 'rail-a-net' } } })).toEqual([
      ['ReservedDRAAttribute', `spec.dra.attributes[${JSON.stringify(key)}]`],
    ]);
  });

  it('refuses a "__proto__" key at its own field rather than losing it', () => {
    expect(located(JSON.parse('{"attributes":{"example.com/a":{"int":1},"__proto__":{"int":2}}}'))).toEqual([
      ['InvalidDRAAttribute', 'spec.dra.attributes["__proto__"]'],
    ]);
  });

  it('leaves the object out of the message: the webhook and the validate command name it themselves', () => {
    const [finding] = findings({ dra: { attributes: { tier: { int: 1 } } } });
    expect(finding?.message).not.toContain('team-a/rail-a');
  });
});

describe('admitNodePolicy: what it leaves alone', () => {
  it('admits zero, false, an empty string and a reference to a SriovNetwork that need not exist', () => {
    expect(
      findings({
        dra: {
          attributes: {
            'example.com/tier': { int: 0 },
            'example.com/fast': { bool: false },
            'example.com/label': { string: '' },
            [NAME]: { string: 'created-later' },
            [NAMESPACE]: { string: 'not-yet-either' },
          },
        },
      }),
    ).toEqual([]);
  });

  it('does not judge the rest of the policy: that is the CRD schema’s', () => {
    expect(findings({ numVfs: -1, resourceName: '!', dra: {} })).toEqual([]);
    expect(findings('not an object')).toEqual([]);
  });
});
