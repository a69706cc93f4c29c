import { describe, expect, it } from '@jest/globals';
import { isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { GO_STRICT_JSON, checkGoDecodable } from './cni-config-shape.ts';

/** What checkGoDecodable says of a configuration: "ok", or its code and exact detail. */
function verdict(config: string): string {
  const parsed = parseStrictJson(config, GO_STRICT_JSON);
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error(`not a JSON object: ${config}`);
  const result = checkGoDecodable(parsed.value, { kind: 'NetworkAttachmentDefinition', namespace: 'ai', name: 'rail-a-net' });
  if (result.ok) return 'ok';
  expect(result.error.object).toEqual({ kind: 'NetworkAttachmentDefinition', namespace: 'ai', name: 'rail-a-net' });
  return `${result.error.code}: ${result.error.detail}`;
}

const single = (fields: string): string => `{"cniVersion":"1.0.0","type":"sriov"${fields}}`;
const list = (root: string, plugin: string): string => `{"cniVersion":"1.0.0","name":"n"${root},"plugins":[{"type":"sriov"${plugin}},{"type":"tuning"}]}`;

// Each expected detail is written out by hand: the field path, the rule and what was found.
describe('checkGoDecodable details', () => {
  it.each([
    [single(',"name":5'), 'MalformedCniConfig: name must be a string, found a number'],
    ['{"cniVersion":["1.0.0"],"type":"sriov"}', 'MalformedCniConfig: cniVersion must be a string, found an array'],
    ['{"cniVersion":"1.0.0","name":"n","plugins":[{"type":5}]}', 'MalformedCniConfig: plugins[0].type must be a string, found a number'],
    [list('', ',"name":null'), 'MalformedCniConfig: plugins[0].name must be a string, found null'],
    [single(',"ipam":"x"'), 'MalformedCniConfig: ipam must be an object, found string'],
    [single(',"ipam":{"type":false}'), 'MalformedCniConfig: ipam.type must be a string, found boolean'],
    [single(',"ipam":{"TYPE":"static"}'), 'MisspelledCniKey: ipam: key "TYPE" must be spelled "type"'],
    [
      list('', ',"ipam":{"type":"static","Node_slice_size":"/28"}'),
      'MisspelledCniKey: plugins[0].ipam: key "Node_slice_size" must be spelled "node_slice_size"',
    ],
    [single(',"dns":"x"'), 'MalformedCniConfig: dns must be an object, found string'],
    [single(',"dns":{"Domain":"x"}'), 'MisspelledCniKey: dns: key "Domain" must be spelled "domain"'],
    [single(',"dns":{"domain":1}'), 'MalformedCniConfig: dns.domain must be a string'],
    [single(',"dns":{"nameservers":"192.0.2.53"}'), 'MalformedCniConfig: dns.nameservers must be a list of strings'],
    [single(',"dns":{"search":["a",1]}'), 'MalformedCniConfig: dns.search must be a list of strings'],
    [list('', ',"dns":{"options":[null]}'), 'MalformedCniConfig: plugins[0].dns.options must be a list of strings'],
    [single(',"capabilities":{"mac":1}'), 'MalformedCniConfig: capabilities must be an object of booleans'],
    [single(',"capabilities":[]'), 'MalformedCniConfig: capabilities must be an object of booleans'],
    [single(',"capabilities":{"mac":true,"ips":"true"}'), 'MalformedCniConfig: capabilities must be an object of booleans'],
    // An empty root type is no type: the root is a conflist and its plugins are read.
    [
      '{"cniVersion":"1.0.0","name":"n","type":"","plugins":[{"type":"sriov","vlan":"x"}]}',
      'MalformedCniConfig: plugins[0].vlan must be a 64-bit integer, found string; the sriov plugin could not decode its configuration',
    ],
    ['{"cniVersion":"1.0.0","name":"n","type":null,"plugins":[{"type":"sriov"}]}', 'MalformedCniConfig: type must be a string, found null'],
    [single(',"prevResult":"x"'), 'MalformedCniConfig: prevResult must be an object'],
    [single(',"Ipam":{}'), 'MisspelledCniKey: key "Ipam" is read as "ipam" by some CNI readers and ignored by others; spell it "ipam"'],
    [
      list('', ',"deviceid":""'),
      'MisspelledCniKey: key "deviceid" at plugins[0] is read as "deviceID" by some CNI readers and ignored by others; spell it "deviceID"',
    ],
    [single(',"vlan":"5"'), 'MalformedCniConfig: vlan must be a 64-bit integer, found string; the sriov plugin could not decode its configuration'],
    [
      list('', ',"runtimeConfig":{"mac":5}'),
      'MalformedCniConfig: plugins[0].runtimeConfig.mac must be a string, found the number 5; the sriov plugin could not decode its configuration',
    ],
    [list(',"disableCheck":"true"', ''), 'MalformedCniConfig: disableCheck must be true or false, found string'],
    [list(',"disableGC":0', ''), 'MalformedCniConfig: disableGC must be true or false, found a number'],
    [list(',"loadOnlyInlinedPlugins":"yes"', ''), 'MalformedCniConfig: loadOnlyInlinedPlugins must be true or false, found string'],
    [list(',"loadOnlyInlinedPlugins":{}', ''), 'MalformedCniConfig: loadOnlyInlinedPlugins must be true or false, found an object'],
    [list(',"cniVersions":["1.0.0"]', ''), 'UnsupportedCniVersion: cniVersions is not supported; set a single cniVersion'],
  ])('%s → %s', (config, expected) => {
    expect(verdict(config)).toBe(expected);
  });

  it.each([
    list(',"disableCheck":true,"disableGC":false,"loadOnlyInlinedPlugins":"FALSE"', ',"ipam":null,"dns":null,"capabilities":null,"prevResult":null'),
    list(',"loadOnlyInlinedPlugins":"True"', ''),
    list(
      ',"loadOnlyInlinedPlugins":true',
      ',"dns":{"nameservers":["192.0.2.53"],"domain":"d","search":[],"options":["ndots:2"]},"capabilities":{"mac":true},"prevResult":{}',
    ),
    // A root with a type is a single plugin: nobody reads its plugins or list flags.
    single(',"plugins":[{"type":"sriov","vlan":"x"}],"disableCheck":"x","loadOnlyInlinedPlugins":1,"cniVersions":["9"]'),
    single(',"ipam":{"type":"static","routes":[]},"x-extension":{"Type":1}'),
    // A conflist whose plugins is not a list is refused later, by the topology check.
    '{"cniVersion":"1.0.0","name":"n","plugins":{"type":"sriov"}}',
  ])('accepts %s', (config) => {
    expect(verdict(config)).toBe('ok');
  });
});
