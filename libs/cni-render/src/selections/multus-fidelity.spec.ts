import { describe, expect, it } from '@jest/globals';
import { parseNetworkSelections } from './parse.ts';

/**
 * What Multus v4.2.3's parsePodNetworkAnnotation yields for each annotation (namespace defaulted to the
 * Pod's, interfaceRequest folded into interface), written out by hand from its Go source.
 */
function tuples(raw: string): unknown {
  const result = parseNetworkSelections(raw, 'ai');
  if (!result.ok) return result.error.code;
  return result.value.map((s) => ({ ns: s.namespace, name: s.name, if: s.interface ?? '', mac: s.mac ?? '', ips: s.ips ?? null }));
}

const plain = (ns: string, name: string, iface = '') => ({ ns, name, if: iface, mac: '', ips: null });

describe('selections read as Multus reads them', () => {
  it.each([
    ['/net1', [plain('ai', 'net1')]],
    ['net1@', [plain('ai', 'net1')]],
    [' infra / net1 @ eth1 ', [plain('infra', 'net1', 'eth1')]],
    ['net1\u0085', [plain('ai', 'net1')]],
    ['[{"Name":"rail-a-net"}]', [plain('ai', 'rail-a-net')]],
    ['[{"name":"a","Interface":"net1"}]', [plain('ai', 'a', 'net1')]],
    ['[{"name":"a","interfaceRequest":"net2"}]', [plain('ai', 'a', 'net2')]],
    ['[{"name":"a","interface":"net1","interfaceRequest":"net2"}]', [plain('ai', 'a', 'net1')]],
    ['[{"name":"a","interface":"","interfaceRequest":"net2"}]', [plain('ai', 'a', 'net2')]],
    ['[{"name":"a","name\u017fpace":"infra"}]', [plain('infra', 'a')]],
    ['[{"name":"a","namespace":null,"mac":null}]', [plain('ai', 'a')]],
    ['[{"name":"a","\\u006eamespace":"infra"}]', [plain('infra', 'a')]],
    ['[{"name":"a","mac":"0200.0000.0001"}]', [{ ...plain('ai', 'a'), mac: '0200.0000.0001' }]],
    ['[{"name":"a","ips":["::ffff:192.0.2.1/99","2001:db8::5"]}]', [{ ...plain('ai', 'a'), ips: ['::ffff:192.0.2.1/99', '2001:db8::5'] }]],
    ['[{"name":"a","ips":[]}]', [{ ...plain('ai', 'a'), ips: [] }]],
    ['[{"name":"a","x":1e400,"portMappings":[{"hostPort":8080,"containerPort":80}],"bandwidth":null}]', [plain('ai', 'a')]],
    ['[{"name":"a","default-route":["192.0.2.1",""],"cni-args":{"k":1e308}}]', [plain('ai', 'a')]],
    ['[]', []],
  ])('%s', (raw, expected) => {
    expect(tuples(raw)).toEqual(expected);
  });

  it.each([
    ['two keys one field apart', '[{"name":"storage","Name":"rail-a-net"}]'],
    ['interface and its folded twin', '[{"name":"a","interface":"net1","Interface":"net2"}]'],
    ['whitespace-only text', ' \t '],
    ['an empty comma part', 'a,'],
    ['a name of the wrong type', '[{"name":5}]'],
    ['a null entry', '[null]'],
    ['a prefix longer than the family', '[{"name":"a","ips":["192.0.2.1/99"]}]'],
    ['an IPv4 octet with a leading zero', '[{"name":"a","ips":["192.0.2.01"]}]'],
    ['an IP with a zone', '[{"name":"a","ips":["fe80::1%eth0"]}]'],
    ['a null IP', '[{"name":"a","ips":[null]}]'],
    ['mixed MAC separators', '[{"name":"a","mac":"02:00-00:00:00:01"}]'],
    ['an invalid infiniband GUID', '[{"name":"a","infiniband-guid":"zz"}]'],
    ['a fractional port', '[{"name":"a","portMappings":[{"hostPort":80.0}]}]'],
    ['a port beyond int64', '[{"name":"a","portMappings":[{"hostPort":9223372036854775808}]}]'],
    ['a null port mapping', '[{"name":"a","portMappings":[null]}]'],
    ['a string bandwidth', '[{"name":"a","bandwidth":{"ingressRate":"1"}}]'],
    ['cni-args beyond float64', '[{"name":"a","cni-args":{"k":1e400}}]'],
    ['an invalid default route', '[{"name":"a","default-route":["gw"]}]'],
    ['an ips string instead of a list', '[{"name":"a","ips":"192.0.2.1"}]'],
    ['a BOM before a comma name', '\ufeffnet1'],
    ['a 16-byte comma interface', 'net1@abcdefghijklmnop'],
  ])('rejects %s', (_case, raw) => {
    expect(tuples(raw)).toBe('MalformedNetworkSelections');
  });
});
