import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { renderShadowConfig } from './shadow-config.ts';

const PCI = '0000:03:00.1';
const OBJECT = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'rail-a-net', field: 'spec.config' };
const nad = (config?: string) => ({ metadata: { name: 'rail-a-net', namespace: 'ai-workloads' }, ...(config === undefined ? {} : { spec: { config } }) });

function rejection(config: string | undefined, pci = PCI) {
  const result = renderShadowConfig(nad(config), pci);
  return result.ok ? `rendered ${result.value.bytes}` : { code: result.error.code, detail: result.error.detail, object: result.error.object };
}

function bytes(config: string, pci = PCI): string {
  const result = renderShadowConfig(nad(config), pci);
  if (!result.ok) throw result.error;
  return result.value.bytes;
}

describe('renderShadowConfig', () => {
  it('reports the rendered bytes, their hash, the effective name and where the sriov entry is', () => {
    const single = renderShadowConfig(nad('{"cniVersion":"1.0.0","type":"sriov","ipam":{}}'), PCI);
    const text = '{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov","ipam":{},"deviceID":"0000:03:00.1"}';
    expect(single).toEqual({
      ok: true,
      value: { bytes: text, sha256: createHash('sha256').update(text).digest('hex'), effectiveName: 'rail-a-net', pluginIndex: null, pluginType: 'sriov' },
    });
    const list = renderShadowConfig(nad('{"cniVersion":"1.0.0","name":"rail-a","plugins":[{"type":"sriov"},{"type":"tuning"}]}'), PCI);
    expect(list.ok && [list.value.effectiveName, list.value.pluginIndex]).toEqual(['rail-a', 0]);
  });

  it.each([
    [
      'no name: right after cniVersion',
      '{"type":"sriov","cniVersion":"1.0.0","ipam":{}}',
      '{"type":"sriov","cniVersion":"1.0.0","name":"rail-a-net","ipam":{},"deviceID":"0000:03:00.1"}',
    ],
    [
      'an empty name: in its place',
      '{"name":"","cniVersion":"1.0.0","type":"sriov"}',
      '{"name":"rail-a-net","cniVersion":"1.0.0","type":"sriov","deviceID":"0000:03:00.1"}',
    ],
    [
      'its own name: kept',
      '{"cniVersion":"1.0.0","type":"sriov","name":"rail-a"}',
      '{"cniVersion":"1.0.0","type":"sriov","name":"rail-a","deviceID":"0000:03:00.1"}',
    ],
  ])('materializes the CNI name for a source with %s', (_case, config, expected) => {
    expect(bytes(config)).toBe(expected);
  });

  it('normalizes a matching deviceID and pciBusID at the sriov entry and leaves empty metaplugin fields alone', () => {
    expect(
      bytes('{"cniVersion":"1.0.0","plugins":[{"type":"sriov","pciBusID":"PCI:0000:03:00.1","deviceID":""},{"type":"tuning","deviceID":"","pciBusID":""}]}'),
    ).toBe(
      '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","pciBusID":"0000:03:00.1","deviceID":"0000:03:00.1"},{"type":"tuning","deviceID":"","pciBusID":""}]}',
    );
    expect(bytes('{"cniVersion":"1.0.0","type":"sriov","deviceID":"0000:03:00.1"}', ' PCI:0000:03:00.1')).toBe(
      '{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov","deviceID":"0000:03:00.1"}',
    );
  });

  it.each([
    ['whereabouts without node slices', '{"type":"whereabouts","node_slice_size":""}'],
    ['whereabouts with node slices off', '{"type":"whereabouts","node_slice_size":null}'],
    ['whereabouts with node slices disabled', '{"type":"whereabouts","node_slice_size":false}'],
    ['host-local with a node_slice_size field', '{"type":"host-local","node_slice_size":"/22"}'],
  ])('accepts %s', (_case, ipam) => {
    expect(bytes(`{"cniVersion":"1.0.0","type":"sriov","ipam":${ipam}}`)).toBe(
      `{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov","ipam":${ipam},"deviceID":"0000:03:00.1"}`,
    );
  });

  it.each([
    ['no spec', undefined, 'MissingInlineConfig', 'spec.config is empty'],
    ['a blank config', ' \n', 'MissingInlineConfig', 'spec.config is empty'],
    ['an array', '[]', 'MalformedCniConfig', 'the configuration must be a JSON object, not an array'],
    ['null', 'null', 'MalformedCniConfig', 'the configuration must be a JSON object, not null'],
    ['a string', '"sriov"', 'MalformedCniConfig', 'the configuration must be a JSON object, not string'],
    ['a number', '7', 'MalformedCniConfig', 'the configuration must be a JSON object, not a number'],
    ['a boolean', 'true', 'MalformedCniConfig', 'the configuration must be a JSON object, not boolean'],
    ['no cniVersion', '{"type":"sriov"}', 'MalformedCniConfig', 'cniVersion must be a string, found missing'],
    ['an unsupported cniVersion', '{"cniVersion":"0.3.1","type":"sriov"}', 'UnsupportedCniVersion', 'cniVersion "0.3.1" is not one of 0.4.0, 1.0.0, 1.1.0'],
    ['an invalid CNI name', '{"cniVersion":"1.0.0","name":"rail a","type":"sriov"}', 'MalformedCniConfig', 'CNI network name "rail a" is invalid'],
    [
      'a root type and plugins',
      '{"cniVersion":"1.0.0","type":"sriov","plugins":[{"type":"sriov"}]}',
      'UnsupportedCniTopology',
      'the configuration has both a root type and plugins; Multus would pick the single-plugin path',
    ],
    ['another single plugin', '{"cniVersion":"1.0.0","type":"macvlan"}', 'UnsupportedCniTopology', 'the single plugin is "macvlan", not sriov'],
    [
      'a device at the conflist root',
      '{"cniVersion":"1.0.0","deviceID":"0000:03:00.1","plugins":[{"type":"sriov"}]}',
      'ConflictingDeviceID',
      'the conflist root carries deviceID; only the sriov entry may name a device',
    ],
    [
      'a PCI bus ID at the conflist root',
      '{"cniVersion":"1.0.0","pciBusID":"0000:03:00.1","plugins":[{"type":"sriov"}]}',
      'ConflictingDeviceID',
      'the conflist root carries pciBusID; only the sriov entry may name a device',
    ],
    [
      'neither type nor plugins',
      '{"cniVersion":"1.0.0"}',
      'MalformedCniConfig',
      'a configuration without a root type needs a nonempty plugins list, found missing',
    ],
    [
      'plugins that are an object',
      '{"cniVersion":"1.0.0","plugins":{}}',
      'MalformedCniConfig',
      'a configuration without a root type needs a nonempty plugins list, found an object',
    ],
    [
      'an empty plugins list',
      '{"cniVersion":"1.0.0","plugins":[]}',
      'MalformedCniConfig',
      'a configuration without a root type needs a nonempty plugins list, found an array',
    ],
    [
      'a plugin that is not an object',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},[]]}',
      'MalformedCniConfig',
      'plugins[1] must be an object, found an array',
    ],
    ['a plugin without a type', '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{}]}', 'MalformedCniConfig', 'plugins[1].type must be a nonempty string'],
    [
      'a plugin with an empty type',
      '{"cniVersion":"1.0.0","plugins":[{"type":""},{"type":"sriov"}]}',
      'MalformedCniConfig',
      'plugins[0].type must be a nonempty string',
    ],
    ['no sriov plugin', '{"cniVersion":"1.0.0","plugins":[{"type":"tuning"}]}', 'UnsupportedCniTopology', 'a conflist needs exactly one sriov plugin, found 0'],
    [
      'two sriov plugins',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"sriov"}]}',
      'UnsupportedCniTopology',
      'a conflist needs exactly one sriov plugin, found 2',
    ],
    [
      'sriov after a metaplugin',
      '{"cniVersion":"1.0.0","plugins":[{"type":"tuning"},{"type":"sriov"}]}',
      'UnsupportedCniTopology',
      'the sriov plugin must be the first entry, found "tuning" first',
    ],
    [
      'a plugin off the allowlist',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"tuning"},{"type":"bridge"}]}',
      'UnsupportedCniTopology',
      'plugins[2] is "bridge"; only tuning may follow sriov',
    ],
    [
      'whereabouts node slices on the sriov entry',
      '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":"whereabouts","node_slice_size":"/22"}}',
      'UnsupportedIpamMode',
      'whereabouts node_slice_size "/22" enables fast node slices',
    ],
    [
      'whereabouts node slices on a metaplugin',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"tuning","ipam":{"type":"whereabouts","node_slice_size":true}}]}',
      'UnsupportedIpamMode',
      'whereabouts node_slice_size true enables fast node slices',
    ],
    [
      'a device on a metaplugin',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"tuning","deviceID":"0000:03:00.1"}]}',
      'ConflictingDeviceID',
      'metaplugin plugins[1] carries deviceID; only the sriov entry may name a device',
    ],
    [
      'a PCI bus ID on a later metaplugin',
      '{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"tuning"},{"type":"tuning","pciBusID":"0000:03:00.1"}]}',
      'ConflictingDeviceID',
      'metaplugin plugins[2] carries pciBusID; only the sriov entry may name a device',
    ],
    [
      'another VF at the sriov entry',
      '{"cniVersion":"1.0.0","type":"sriov","deviceID":"0000:03:00.2"}',
      'ConflictingDeviceID',
      'the sriov plugin names deviceID "0000:03:00.2" but the allocated VF is 0000:03:00.1',
    ],
    [
      'something else than a PCI address as pciBusID',
      '{"cniVersion":"1.0.0","type":"sriov","pciBusID":"eth3"}',
      'ConflictingDeviceID',
      'the sriov plugin names pciBusID "eth3" but the allocated VF is 0000:03:00.1',
    ],
  ])('rejects %s, naming the source NAD', (_case, config, code, detail) => {
    expect(rejection(config)).toEqual({ code, detail, object: OBJECT });
  });

  it('rejects an allocated VF that is not a PCI address before reading the template', () => {
    const result = renderShadowConfig(nad(), '03:00.1');
    expect(result.ok ? 'rendered' : [result.error.code, result.error.detail]).toEqual([
      'InvalidPciAddress',
      '"03:00.1" is not a PCI address of the form 0000:03:00.1',
    ]);
  });

  it('leaves a null deviceID or pciBusID on a metaplugin alone', () => {
    expect(bytes('{"cniVersion":"1.0.0","plugins":[{"type":"sriov"},{"type":"tuning","deviceID":null,"pciBusID":null}]}')).toBe(
      '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","deviceID":"0000:03:00.1"},{"type":"tuning","deviceID":null,"pciBusID":null}]}',
    );
  });

  it.each([
    ['a repeated key', '{"cniVersion":"1.0.0","type":"sriov","mtu":1,"mtu":2}', 'DuplicateCniKey', /; Go's encoding\/json reads such keys as one field$/],
    ['a number beyond float64', '{"cniVersion":"1.0.0","type":"sriov","x":1e400}', 'MalformedCniConfig', /, so Multus cannot decode the configuration$/],
    ['truncated JSON', '{"cniVersion":', 'MalformedCniConfig', /^unexpected end of input at offset 14$/],
  ])('rejects %s, naming the source NAD and saying what Go makes of it', (_case, config, code, detail) => {
    const result = renderShadowConfig(nad(config), PCI);
    expect(result.ok ? 'rendered' : [result.error.code, result.error.object]).toEqual([code, OBJECT]);
    expect(result.ok ? '' : result.error.detail).toMatch(detail);
  });

  it('names the source NAD when a key repeats under Go folding', () => {
    const result = renderShadowConfig(nad('{"cniVersion":"1.0.0","type":"sriov","mtu":1,"MTU":2}'), PCI);
    expect(result.ok ? 'rendered' : [result.error.code, result.error.object]).toEqual(['DuplicateCniKey', OBJECT]);
  });
});
