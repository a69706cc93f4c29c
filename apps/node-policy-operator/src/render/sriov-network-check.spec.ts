import { describe, expect, it } from '@jest/globals';
import { checkSriovNetwork } from './sriov-network-check.ts';

const OPERATOR_NAMESPACE = 'sriov-network-operator';

function problems(network: unknown): [string, string | undefined, string][] {
  const checked = checkSriovNetwork(network, OPERATOR_NAMESPACE);
  return checked.ok ? [] : checked.errors.map((error) => [error.code, error.field, error.detail]);
}

const network = (spec: Record<string, unknown>, namespace = 'team-a') => ({
  metadata: { name: 'rail-a', namespace },
  spec: { resourceName: 'rail_a', ...spec },
});

describe('checkSriovNetwork: every problem at once', () => {
  it('reports a limit, the namespace rule and each malformed JSON field together, each at its field', () => {
    expect(
      problems(
        network({
          vlan: 4095,
          logLevel: 'trace',
          networkNamespace: 'team-b',
          capabilities: '["mac"]',
          ipam: '{"type": host-local}',
          metaPlugins: '{"type":"vrf"},',
        }),
      ),
    ).toEqual([
      ['InvalidSriovNetwork', 'spec.vlan', 'Too big: expected number to be <=4094'],
      ['InvalidSriovNetwork', 'spec.logLevel', expect.stringMatching(/^Invalid/)],
      ['NetworkAttachmentDefinitionInvalid', 'spec.networkNamespace', `is allowed only on a SriovNetwork in the operator namespace ${OPERATOR_NAMESPACE}`],
      ['MalformedSriovNetworkJson', 'spec.capabilities', 'must be a JSON object'],
      ['MalformedSriovNetworkJson', 'spec.ipam', expect.stringMatching(/^is not valid JSON once whitespace is removed: /)],
      ['MalformedSriovNetworkJson', 'spec.metaPlugins', expect.stringMatching(/^is not a valid list of JSON objects: /)],
    ]);
  });

  it('reports a missing resourceName and a bad object name beside malformed ipam', () => {
    expect(problems({ metadata: { name: 'Rail_A', namespace: 'team-a' }, spec: { ipam: '{' } }).map(([code, field]) => [code, field])).toEqual([
      ['InvalidSriovNetwork', 'metadata.name'],
      ['InvalidSriovNetwork', 'spec.resourceName'],
      ['MalformedSriovNetworkJson', 'spec.ipam'],
    ]);
  });

  it('judges a raw JSON field that is no string by its type only', () => {
    expect(problems(network({ capabilities: { mac: true } })).map(([code, field]) => [code, field])).toEqual([['InvalidSriovNetwork', 'spec.capabilities']]);
  });

  it('names the object as far as it can be told, and refuses what is no object at all', () => {
    const checked = checkSriovNetwork(null, OPERATOR_NAMESPACE);
    expect(checked.ok ? [] : checked.errors.map((error) => [error.code, error.subject, error.field])).toEqual([['InvalidSriovNetwork', '?/?', undefined]]);
  });

  it('admits a SriovNetwork in the operator namespace placing its NAD elsewhere, with valid JSON fields', () => {
    const checked = checkSriovNetwork(
      network({ networkNamespace: 'team-a', ipam: ' { "type" : "host-local" } ', metaPlugins: '{"type":"tuning"}' }, OPERATOR_NAMESPACE),
      OPERATOR_NAMESPACE,
    );
    expect(checked.ok).toBe(true);
  });
});
