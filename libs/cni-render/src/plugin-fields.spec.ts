import { describe, expect, it } from '@jest/globals';
import { isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { PLUGIN_FIELD_TABLES, wrongField } from './plugin-fields.ts';

function problem(type: 'sriov' | 'tuning', entry: string): string {
  const parsed = parseStrictJson(entry);
  const fields = PLUGIN_FIELD_TABLES.get(type);
  if (!parsed.ok || !isJsonObject(parsed.value) || fields === undefined) throw new Error(`bad test input ${entry}`);
  return wrongField(parsed.value, fields) ?? 'ok';
}

// Expected values follow the Go field types of sriov-cni's NetConf and tuning's TuningConf, as libcni
// delivers numbers to them (re-encoded through float64).
describe('plugin field types', () => {
  it.each([
    ['sriov', '{"vlan":"5"}', 'vlan must be a 64-bit integer, found string'],
    ['sriov', '{"vlan":[5]}', 'vlan must be a 64-bit integer, found a list'],
    ['sriov', '{"vlan":{}}', 'vlan must be a 64-bit integer, found an object'],
    ['sriov', '{"vlanQoS":0.5}', 'vlanQoS must be a 64-bit integer, found the number 0.5'],
    ['sriov', '{"min_tx_rate":9223372036854775807}', 'min_tx_rate must be a 64-bit integer, found the number 9223372036854775807'],
    ['sriov', '{"max_tx_rate":-9223372036854777856}', 'max_tx_rate must be a 64-bit integer, found the number -9223372036854777856'],
    ['sriov', '{"spoofchk":true}', 'spoofchk must be a string, found boolean'],
    ['sriov', '{"VFID":"1"}', 'VFID must be a 64-bit integer, found string'],
    ['sriov', '{"vfid":1.5}', 'vfid must be a 64-bit integer, found the number 1.5'],
    ['sriov', '{"origVfState":{"LinkState":4294967296}}', 'origVfState.LinkState must be an unsigned 32-bit integer, found the number 4294967296'],
    ['sriov', '{"origVfState":{"LinkState":-1}}', 'origVfState.LinkState must be an unsigned 32-bit integer, found the number -1'],
    ['sriov', '{"origVfState":{"spoofchk":"on"}}', 'origVfState.spoofchk must be true or false, found string'],
    ['sriov', '{"origVfState":"x"}', 'origVfState must be an object, found string'],
    ['sriov', '{"runtimeConfig":{"MAC":1}}', 'runtimeConfig.MAC must be a string, found the number 1'],
    ['tuning', '{"sysctl":[]}', 'sysctl must be an object of strings, found a list'],
    ['tuning', '{"sysctl":{"net.core.somaxconn":"1024","net.ipv4.ip_forward":1}}', 'sysctl.net.ipv4.ip_forward must be a string, found the number 1'],
    ['tuning', '{"promisc":"true"}', 'promisc must be true or false, found string'],
    ['tuning', '{"args":{"cni":{"mtu":"9000"}}}', 'args.cni.mtu must be a 64-bit integer, found string'],
    ['tuning', '{"args":{"cni":{"sysctl":{"a":false}}}}', 'args.cni.sysctl.a must be a string, found boolean'],
  ] as const)('%s %s → %s', (type, entry, expected) => {
    expect(problem(type, entry)).toBe(expected);
  });

  it.each([
    ['sriov', '{"vlan":4094,"vlanQoS":1E+0,"min_tx_rate":1.0,"max_tx_rate":9223372036854774784,"VFID":-9223372036854775808}'],
    ['sriov', '{"origVfState":{"LinkState":4294967295,"SpoofChk":true},"MTU":9000,"mac":"02:00:00:00:00:01","runtimeConfig":{"mac":"x"}}'],
    ['sriov', '{"vlan":null,"origVfState":null,"runtimeConfig":null,"unknown":[1,"x",{}],"type":5}'],
    ['tuning', '{"sysctl":{"a":"1","b":null},"promisc":false,"allmulti":true,"txQLen":1000,"args":{"cni":{"promisc":true},"other":1}}'],
    ['sriov', '{"origVfState":{"LinkState":0}}'],
  ] as const)('%s accepts %s', (type, entry) => {
    expect(problem(type, entry)).toBe('ok');
  });
});
