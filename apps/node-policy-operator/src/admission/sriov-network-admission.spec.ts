import { describe, expect, it } from '@jest/globals';
import { admitObject } from './admit-object.ts';

const OPTIONS = { operatorNamespace: 'sriov-network-operator' };

function network(namespace: string, spec: Record<string, unknown>) {
  return { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name: 'rail-a', namespace }, spec };
}

describe('admitObject: SriovNetwork', () => {
  it('admits what the controller can render', () => {
    expect(admitObject('SriovNetwork', network('team-a', { resourceName: 'rail_a', ipam: '{ "type": "host-local" }', vlan: 0 }), OPTIONS)).toEqual([]);
    expect(admitObject('SriovNetwork', network('sriov-network-operator', { resourceName: 'rail_a', networkNamespace: 'team-a' }), OPTIONS)).toEqual([]);
  });

  it.each([
    [
      'networkNamespace outside the operator namespace',
      network('team-a', { resourceName: 'r', networkNamespace: 'team-b' }),
      'NetworkAttachmentDefinitionInvalid',
      'spec.networkNamespace',
    ],
    ['malformed ipam', network('team-a', { resourceName: 'r', ipam: '{"type":' }), 'MalformedSriovNetworkJson', 'spec.ipam'],
    ['capabilities that are no object', network('team-a', { resourceName: 'r', capabilities: '[]' }), 'MalformedSriovNetworkJson', 'spec.capabilities'],
    ['a missing resourceName', network('team-a', {}), 'InvalidSriovNetwork', 'spec.resourceName'],
    ['vlan 4095', network('team-a', { resourceName: 'r', vlan: 4095 }), 'InvalidSriovNetwork', 'spec.vlan'],
  ])('refuses %s with the renderer’s code and field', (_label, object, code, field) => {
    const findings = admitObject('SriovNetwork', object, OPTIONS);
    expect(findings.map((finding) => [finding.code, finding.field])).toEqual([[code, field]]);
    expect(findings[0]?.message).toMatch(new RegExp(`^${code}: .+ \u2014 .+`));
  });

  it('reports every fault at once, each at its field, in the order the controller meets them', () => {
    const object = network('team-a', { resourceName: 'r', vlan: 4095, networkNamespace: 'team-b', capabilities: '[]', ipam: '{"type":' });
    expect(admitObject('SriovNetwork', object, OPTIONS).map((finding) => [finding.code, finding.field])).toEqual([
      ['InvalidSriovNetwork', 'spec.vlan'],
      ['NetworkAttachmentDefinitionInvalid', 'spec.networkNamespace'],
      ['MalformedSriovNetworkJson', 'spec.capabilities'],
      ['MalformedSriovNetworkJson', 'spec.ipam'],
    ]);
  });

  it('judges the namespace rule by the operator namespace it is given', () => {
    const object = network('platform', { resourceName: 'r', networkNamespace: 'team-a' });
    expect(admitObject('SriovNetwork', object, OPTIONS)).toHaveLength(1);
    expect(admitObject('SriovNetwork', object, { operatorNamespace: 'platform' })).toEqual([]);
  });
});
