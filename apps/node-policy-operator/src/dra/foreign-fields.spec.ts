import { describe, expect, it } from '@jest/globals';
import { foreignFields } from './foreign-fields.ts';

const desired = {
  metadata: { name: 'dra-policy-u-attrs', labels: { 'sriovnetwork.openshift.io/generated-by': 'sriov-network-operator' } },
  spec: { attributes: { 'example.com/tier': { string: 'gold' } } },
};

describe('foreignFields', () => {
  it('removes added labels and attribute keys, with "/" and "~" escaped in the path', () => {
    const actual = {
      metadata: { name: 'dra-policy-u-attrs', uid: 'x', labels: { ...desired.metadata.labels, 'example.com/edited': 'true' } },
      spec: {
        attributes: {
          ...desired.spec.attributes,
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-b-net' },
          'a~b': { int: 1 },
        },
        extra: true,
      },
    };
    expect(foreignFields(actual, desired)).toEqual([
      { op: 'remove', path: '/metadata/labels/example.com~1edited' },
      { op: 'remove', path: '/spec/attributes/sriovnetwork.k8snetworkplumbingwg.io~1netAttachDefName' },
      { op: 'remove', path: '/spec/attributes/a~0b' },
      { op: 'remove', path: '/spec/extra' },
    ]);
  });

  it('removes nothing where either side has no map to compare, such as an object whose labels are gone', () => {
    expect(foreignFields({ metadata: { name: 'dra-policy-u-attrs' }, spec: desired.spec }, desired)).toEqual([]);
    expect(foreignFields({ metadata: { name: 'dra-policy-u-attrs', labels: null }, spec: desired.spec }, desired)).toEqual([]);
    expect(foreignFields({ ...desired, spec: { attributes: { 'example.com/tier': { string: 'gold' } } } }, { metadata: desired.metadata })).toEqual([]);
  });

  it('leaves metadata the operator does not set, and values it replaced whole, alone', () => {
    const actual = {
      metadata: { ...desired.metadata, uid: 'x', annotations: { note: 'kept' } },
      spec: { attributes: { 'example.com/tier': { string: 'silver' } } },
    };
    expect(foreignFields(actual, desired)).toEqual([]);
  });
});
