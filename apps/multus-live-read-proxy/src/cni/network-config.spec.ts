import { describe, expect, it } from '@jest/globals';
import { serializeJson } from '@sriov-dra/contract';
import { CniInvocationError } from './cni-error.ts';
import { parseNetworkConfig } from './network-config.ts';

const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

function refusal(text: string | Uint8Array): CniInvocationError {
  try {
    parseNetworkConfig(typeof text === 'string' ? bytes(text) : text);
  } catch (error) {
    if (error instanceof CniInvocationError) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('parseNetworkConfig', () => {
  it('reads a conflist: name, version, each plugin with its declared capabilities and its exact object', () => {
    const text =
      '{"cniVersion":"1.0.0","name":"net-a","plugins":[{"type":"sriov","vlan":100,"big":18446744073709551615,"capabilities":{"ips":true,"mac":false,"bandwidth":true}},{"type":"tuning"}]}';
    const network = parseNetworkConfig(bytes(text));
    expect(network).toMatchObject({ kind: 'conflist', name: 'net-a', cniVersion: '1.0.0', disableCheck: false });
    expect(network.plugins.map((plugin) => [plugin.type, plugin.capabilities])).toEqual([
      ['sriov', ['ips', 'bandwidth']],
      ['tuning', []],
    ]);
    expect(serializeJson(network.plugins[0]?.raw ?? new Map())).toBe(
      '{"type":"sriov","vlan":100,"big":18446744073709551615,"capabilities":{"ips":true,"mac":false,"bandwidth":true}}',
    );
    expect(Buffer.from(network.bytes).toString('utf8')).toBe(text);
  });

  it('reads a root with a type as a single plugin even when it also has plugins (as Multus does)', () => {
    const network = parseNetworkConfig(bytes('{"cniVersion":"0.4.0","name":"single","type":"sriov","plugins":[]}'));
    expect(network.kind).toBe('conf');
    expect(network.plugins.map((plugin) => plugin.type)).toEqual(['sriov']);
  });

  it('reads an empty root type as a conflist', () => {
    expect(parseNetworkConfig(bytes('{"cniVersion":"1.1.0","name":"l","type":"","plugins":[{"type":"a"}]}')).kind).toBe('conflist');
  });

  it('takes the highest cniVersions entry not above 1.1.0, as libcni does', () => {
    expect(parseNetworkConfig(bytes('{"cniVersion":"0.4.0","cniVersions":["1.0.0","2.0.0"],"name":"l","plugins":[{"type":"a"}]}')).cniVersion).toBe('1.0.0');
  });

  it('reads disableCheck as a boolean or a string in any case', () => {
    expect(parseNetworkConfig(bytes('{"cniVersion":"1.0.0","name":"l","disableCheck":"True","plugins":[{"type":"a"}]}')).disableCheck).toBe(true);
    expect(refusal('{"cniVersion":"1.0.0","name":"l","disableCheck":"yes","plugins":[{"type":"a"}]}').code).toBe('MalformedDelegateConfig');
  });

  it.each([
    ['not JSON', '{"name":'],
    ['a duplicate key', '{"cniVersion":"1.0.0","name":"l","name":"m","plugins":[{"type":"a"}]}'],
    ['keys equal under Go case folding', '{"cniVersion":"1.0.0","name":"l","plugins":[{"type":"a","mtu":1,"MTU":2}]}'],
    ['an array root', '[]'],
    ['no name', '{"cniVersion":"1.0.0","plugins":[{"type":"a"}]}'],
    ['an invalid name', '{"cniVersion":"1.0.0","name":"a/b","plugins":[{"type":"a"}]}'],
    ['neither type nor plugins', '{"cniVersion":"1.0.0","name":"l"}'],
    ['empty plugins', '{"cniVersion":"1.0.0","name":"l","plugins":[]}'],
    ['a plugin without type', '{"cniVersion":"1.0.0","name":"l","plugins":[{"type":"a"},{"name":"x"}]}'],
    ['a plugin that is not an object', '{"cniVersion":"1.0.0","name":"l","plugins":["a"]}'],
    ['a non-boolean capability', '{"cniVersion":"1.0.0","name":"l","plugins":[{"type":"a","capabilities":{"ips":"true"}}]}'],
    ['a numeric type', '{"cniVersion":"1.0.0","name":"l","type":7}'],
  ])('refuses %s with MalformedDelegateConfig', (_what, text) => {
    expect(refusal(text).code).toBe('MalformedDelegateConfig');
  });

  it('names the network when the name is readable', () => {
    const error = refusal('{"cniVersion":"1.0.0","name":"named-net","plugins":[]}');
    expect(error.network).toBe('named-net');
    expect(error.message).toContain('named-net');
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(refusal(Uint8Array.from([0x7b, 0xff, 0x7d])).code).toBe('MalformedDelegateConfig');
  });

  it.each(['0.3.1', '1.2.0', ''])('refuses cniVersion %j with UnsupportedDelegateCniVersion', (version) => {
    const error = refusal(`{"cniVersion":"${version}","name":"v","type":"a"}`);
    expect(error.code).toBe('UnsupportedDelegateCniVersion');
    expect(error.network).toBe('v');
  });
});
