import { describe, expect, it } from '@jest/globals';
import { parseNetworkConfig } from './network-config.ts';
import { capabilityArgsJson, pluginStdin } from './plugin-stdin.ts';

const LIST = parseNetworkConfig(
  Buffer.from(
    '{"cniVersion":"1.0.0","name":"net-a","plugins":[{"type":"a","name":"own","n":1.50,"capabilities":{"ips":true,"mac":false}},{"type":"b","runtimeConfig":{"x":1},"capabilities":{"mac":true}}]}',
  ),
);

function capabilities(value: Record<string, unknown>) {
  const json = capabilityArgsJson(value);
  if (json === undefined) throw new Error('not JSON');
  return json;
}

describe('pluginStdin', () => {
  const [first, second] = LIST.plugins;
  if (first === undefined || second === undefined) throw new Error('two plugins expected');

  it('sets the list name and version in place and adds prevResult and the declared capabilities last', () => {
    const text = pluginStdin(LIST, first, { cniVersion: '1.0.0', ips: [{ address: '10.0.0.2/24' }] }, capabilities({ ips: ['10.0.0.2/24'], mac: 'aa' }));
    expect(text).toBe(
      '{"type":"a","name":"net-a","n":1.50,"capabilities":{"ips":true,"mac":false},"cniVersion":"1.0.0","prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.2/24"}]},"runtimeConfig":{"ips":["10.0.0.2/24"]}}',
    );
  });

  it('replaces the plugin runtimeConfig when a declared capability has an argument', () => {
    expect(JSON.parse(pluginStdin(LIST, second, undefined, capabilities({ mac: 'aa' })))).toMatchObject({ runtimeConfig: { mac: 'aa' } });
  });

  it('keeps the plugin runtimeConfig when no declared capability has an argument', () => {
    expect(JSON.parse(pluginStdin(LIST, second, undefined, capabilities({ ips: ['10.0.0.2/24'] })))).toMatchObject({ runtimeConfig: { x: 1 } });
  });

  it('adds no prevResult and no runtimeConfig when there is none', () => {
    const stdin = JSON.parse(pluginStdin(LIST, first, undefined, capabilities({ mac: 'aa' }))) as Record<string, unknown>;
    expect(stdin).not.toHaveProperty('prevResult');
    expect(stdin).not.toHaveProperty('runtimeConfig');
  });

  it('refuses capability arguments that are not JSON data', () => {
    expect(capabilityArgsJson({ ips: 1n })).toBeUndefined();
  });
});
