import { describe, expect, it } from '@jest/globals';
import { serializeJson } from '@sriov-dra/contract';
import { parseNetworkSelections } from './parse.ts';
import { serializeNetworkSelections } from './serialize.ts';

function typed(raw: string | undefined): unknown[] {
  const result = parseNetworkSelections(raw, 'ai-workloads');
  if (!result.ok) throw result.error;
  return result.value.map((selection) => ({ name: selection.name, namespace: selection.namespace, interface: selection.interface }));
}

describe('parseNetworkSelections', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['storage', [{ name: 'storage', namespace: 'ai-workloads', interface: undefined }]],
    [
      ' infra/mgmt@mgmt0 , storage@net5',
      [
        { name: 'mgmt', namespace: 'infra', interface: 'mgmt0' },
        { name: 'storage', namespace: 'ai-workloads', interface: 'net5' },
      ],
    ],
    ['[{"name":"storage","namespace":"","interface":""}]', [{ name: 'storage', namespace: 'ai-workloads', interface: undefined }]],
    [
      '[{"name":"mgmt","namespace":"infra","interface":"mgmt0","mac":"02:00:00:00:00:01","ips":["192.0.2.5/24","2001:db8::5"]}]',
      [{ name: 'mgmt', namespace: 'infra', interface: 'mgmt0' }],
    ],
  ] as const)('reads %j like Multus', (raw, expected) => {
    expect(typed(raw)).toEqual(expected);
  });

  it.each([
    ['a JSON object instead of an array', '{"name":"storage"}'],
    ['an entry without name', '[{"namespace":"infra"}]'],
    ['a non-object entry', '["storage"]'],
    ['a namespace of the wrong type', '[{"name":"a","namespace":1}]'],
    ['an invalid interface', '[{"name":"a","interface":"has space"}]'],
    ['an invalid MAC', '[{"name":"a","mac":"02:00"}]'],
    ['an invalid IP', '[{"name":"a","ips":["300.1.1.1"]}]'],
    ['a duplicate key', '[{"name":"a","name":"b"}]'],
    ['comma notation with two slashes', 'a/b/c'],
    ['comma notation with two @', 'a@b@c'],
    ['an uppercase comma name', 'Storage'],
    ['an empty comma entry', 'a,,b'],
    ['whitespace-only text (Multus would look up a NAD named "")', '  '],
    ['truncated JSON', '[{"name":'],
  ])('rejects %s', (_case, raw) => {
    const result = parseNetworkSelections(raw, 'ai-workloads', { kind: 'Pod', namespace: 'ai-workloads', name: 'p' });
    expect(result.ok ? 'parsed' : result.error.code).toBe('MalformedNetworkSelections');
    if (!result.ok) expect(result.error.message).toContain('Pod ai-workloads/p annotation k8s.v1.cni.cncf.io/networks');
  });

  it('keeps unknown fields and the exact entry text', () => {
    const raw = '[ {"name":"a", "x-new": {"deep": [1.50, 12345678901234567890]}}, {"name":"b"} ]';
    const result = parseNetworkSelections(raw, 'ns');
    if (!result.ok) throw result.error;
    expect(serializeJson(result.value[0]?.raw ?? null)).toBe('{"name":"a","x-new":{"deep":[1.50,12345678901234567890]}}');
    expect(serializeNetworkSelections(result.value)).toBe('[{"name":"a", "x-new": {"deep": [1.50, 12345678901234567890]}},{"name":"b"}]');
  });

  it('writes comma notation back as the equivalent objects', () => {
    const result = parseNetworkSelections('infra/mgmt@mgmt0,storage', 'ns');
    if (!result.ok) throw result.error;
    expect(serializeNetworkSelections(result.value)).toBe('[{"name":"mgmt","namespace":"infra","interface":"mgmt0"},{"name":"storage"}]');
  });
});
