import { describe, expect, it } from '@jest/globals';
import { renderShadowConfig } from './shadow-config.ts';

const PCI = '0000:03:00.1';

function render(config: string): string {
  const result = renderShadowConfig({ metadata: { name: 'rail-a-net', namespace: 'ai' }, spec: { config } }, PCI);
  return result.ok ? 'rendered' : result.error.code;
}

describe('CNI configurations every Go reader decodes alike', () => {
  it.each([
    // sriov-cni would decode the last spelling: another Pod's VF.
    ['a folded deviceID twin', '{"cniVersion":"1.0.0","type":"sriov","deviceID":"","DeviceID":"0000:99:00.1"}', 'DuplicateCniKey'],
    ['a folded type twin', '{"cniVersion":"1.0.0","type":"sriov","Type":"macvlan"}', 'DuplicateCniKey'],
    ['a Kelvin-sign twin in an extension', '{"cniVersion":"1.0.0","type":"sriov","\u212aeep":1,"keep":2}', 'DuplicateCniKey'],
    [
      'a folded twin deep in ipam',
      '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":"static","routes":[{"dst":"0.0.0.0/0","DST":"::/0"}]}}',
      'DuplicateCniKey',
    ],
    ['a lone other spelling of deviceID', '{"cniVersion":"1.0.0","type":"sriov","DeviceID":"0000:99:00.1"}', 'MisspelledCniKey'],
    ['an other spelling of plugins', '{"cniVersion":"1.0.0","name":"n","pluginſ":[{"type":"sriov"}]}', 'MisspelledCniKey'],
    [
      'an other spelling of ipam on a plugin',
      '{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"sriov","IPAM":{"type":"whereabouts","node_slice_size":"/28"}}]}',
      'MisspelledCniKey',
    ],
    ['an other spelling of node_slice_size', '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":"whereabouts","Node_Slice_Size":"/28"}}', 'MisspelledCniKey'],
    ['a number beyond float64', '{"cniVersion":"1.0.0","type":"sriov","mtu":1e400}', 'MalformedCniConfig'],
    ['a string ipam', '{"cniVersion":"1.0.0","type":"sriov","ipam":"host-local"}', 'MalformedCniConfig'],
    ['a numeric ipam type', '{"cniVersion":"1.0.0","type":"sriov","ipam":{"type":1}}', 'MalformedCniConfig'],
    ['a list dns', '{"cniVersion":"1.0.0","type":"sriov","dns":[]}', 'MalformedCniConfig'],
    ['non-boolean capabilities', '{"cniVersion":"1.0.0","type":"sriov","capabilities":{"mac":"true"}}', 'MalformedCniConfig'],
    ['a string disableCheck', '{"cniVersion":"1.0.0","name":"n","disableCheck":"true","plugins":[{"type":"sriov"}]}', 'MalformedCniConfig'],
    ['cniVersions', '{"cniVersion":"1.0.0","cniVersions":["1.1.0"],"name":"n","plugins":[{"type":"sriov"}]}', 'UnsupportedCniVersion'],
    ['a conflist root deviceID', `{"cniVersion":"1.0.0","name":"n","deviceID":"${PCI}","plugins":[{"type":"sriov"}]}`, 'ConflictingDeviceID'],
    ['a numeric pciBusID', '{"cniVersion":"1.0.0","type":"sriov","pciBusID":5}', 'ConflictingDeviceID'],
    ['a conflist root pciBusID', '{"cniVersion":"1.0.0","name":"n","pciBusID":"","plugins":[{"type":"sriov"}]}', 'ConflictingDeviceID'],
  ])('refuses %s', (_case, config, code) => {
    expect(render(config)).toBe(code);
  });

  it.each([
    ['a tiny number', '{"cniVersion":"1.0.0","type":"sriov","x":1e-400}'],
    ['keys that differ by more than case', '{"cniVersion":"1.0.0","type":"sriov","types":["a"],"ss":1,"ß":2}'],
    ['a non-ASCII extension key', '{"cniVersion":"1.0.0","type":"sriov","x\u0130":1}'],
    ['a null deviceID, which Go reads as unset', '{"cniVersion":"1.0.0","type":"sriov","deviceID":null,"pciBusID":null}'],
    ['a string disableCheck on a single plugin, which no reader reads', '{"cniVersion":"1.0.0","type":"sriov","disableCheck":"TRUE"}'],
  ])('renders %s', (_case, config) => {
    expect(render(config)).toBe('rendered');
  });
});

describe('plugin fields of the type the plugin decodes', () => {
  it.each([
    ['a float vlanQoS', '{"cniVersion":"1.0.0","type":"sriov","vlanQoS":1e308}'],
    ['a string vlan', '{"cniVersion":"1.0.0","type":"sriov","vlan":"5"}'],
    ['a fractional max_tx_rate', '{"cniVersion":"1.0.0","type":"sriov","max_tx_rate":100.5}'],
    ['an integer that reaches the plugin rounded beyond int64', '{"cniVersion":"1.0.0","type":"sriov","min_tx_rate":9223372036854775807}'],
    ['an integer Go writes back with an exponent', '{"cniVersion":"1.0.0","type":"sriov","min_tx_rate":1e21}'],
    ['a numeric spoofchk', '{"cniVersion":"1.0.0","type":"sriov","spoofchk":1}'],
    ['a string MTU under its Go name', '{"cniVersion":"1.0.0","type":"sriov","mtu":"9000"}'],
    ['a negative LinkState', '{"cniVersion":"1.0.0","type":"sriov","origVfState":{"LinkState":-1}}'],
    ['a list runtimeConfig', '{"cniVersion":"1.0.0","type":"sriov","runtimeConfig":[]}'],
    ['a fractional tuning mtu', '{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"sriov"},{"type":"tuning","mtu":9000.5}]}'],
    ['a numeric sysctl', '{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"sriov"},{"type":"tuning","sysctl":{"net.ipv4.ip_forward":1}}]}'],
    ['a string promisc in tuning args', '{"cniVersion":"1.0.0","name":"n","plugins":[{"type":"sriov"},{"type":"tuning","args":{"cni":{"promisc":"true"}}}]}'],
  ])('refuses %s', (_case, config) => {
    expect(render(config)).toBe('MalformedCniConfig');
  });

  it('renders integers that reach the plugin as integers after libcni re-encodes them', () => {
    expect(render('{"cniVersion":"1.0.0","type":"sriov","min_tx_rate":1.0,"vlanQoS":1E+2,"max_tx_rate":9223372036854774784}')).toBe('rendered');
  });

  it('renders a null ipam, which Go reads as none', () => {
    expect(render('{"cniVersion":"1.0.0","type":"sriov","ipam":null,"dns":null}')).toBe('rendered');
  });

  it('renders typed fields with values of their type, and null', () => {
    expect(
      render(
        '{"cniVersion":"1.0.0","type":"sriov","vlan":1203,"vlanQoS":null,"spoofchk":"on","Master":"ens1f0","VFID":-1,"origVfState":{"LinkState":4294967295}}',
      ),
    ).toBe('rendered');
  });
});
