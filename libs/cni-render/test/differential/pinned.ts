// Minimal inputs of every divergence class the harness has found, run on every test run so that a fixed
// class stays fixed whatever the generators happen to draw. Each comment says what went wrong.
import type { DiffCase } from './compare.ts';

const cni = (config: string, pci = '0000:03:00.1'): DiffCase => ({ kind: 'cni', config, pci, nadName: 'rail-a-net', nadNamespace: 'ai-workloads' });
const selections = (text: string): DiffCase => ({ kind: 'selections', text, podNamespace: 'ai-workloads' });

export const PINNED: readonly DiffCase[] = [
  // Two spellings of deviceID: the stored shadow names two devices; a direct Go decode takes the foreign one.
  cni('{"type":"sriov","deviceID":"","DeviceID":"0000:99:00.1","cniVersion":"1.0.0"}'),
  // A spelling that sorts after "deviceID": libcni's sorted re-marshalling hands sriov-cni the foreign device.
  cni('{"type":"sriov","deviceid":"0000:99:00.1","cniVersion":"1.0.0"}'),
  cni('{"deviceId":"","type":"sriov","cniVersion":"1.1.0"}'),
  // A second spelling of type: Go runs macvlan.
  cni('{"type":"sriov","cniVersion":"1.0.0","TYPE":"macvlan"}'),
  // Spellings of ipam, name and cniVersion that Go reads and exact-key readers do not.
  cni('{"type":"sriov","Ipam":{"type":"static"},"cniVersion":"1.0.0"}'),
  cni('{"cniVersion":"1.0.0","type":"sriov","namE":"rail-a"}'),
  cni('{"type":"sriov","cniVer\u017fion":"0.3.1","cniVersion":"0.4.0"}'),
  cni('{"cniVer\u017fion":"1.1.0","type":"sriov"}'),
  cni('{"cniVersion":"1.0.0","type":"sriov","Name":""}'),
  // Numbers: beyond float64 (Multus's map decode fails), and ones sriov-cni's int fields cannot hold.
  cni('{"type":"sriov","cniVersion":"1.0.0","vlan":1e400}'),
  cni('{"type":"sriov","min_tx_rate":0.1,"cniVersion":"1.0.0"}'),
  cni('{"vlanQoS":1e308,"type":"sriov","cniVersion":"1.1.0"}'),
  // Fields of the CNI NetConf and of sriov-cni/tuning structs with the wrong JSON type.
  cni('{"type":"sriov","cniVersion":"1.0.0","ipam":{"type":5}}'),
  cni('{"ipam":5,"type":"sriov","cniVersion":"0.4.0"}'),
  cni('{"cniVersion":"0.4.0","dns":[],"type":"sriov"}'),
  cni('{"capabilities":[],"type":"sriov","cniVersion":"1.0.0"}'),
  cni('{"type":"sriov","cniVersion":"1.0.0","prevResult":"x"}'),
  cni('{"cniVersion":"1.0.0","MAC":5,"type":"sriov"}'),
  cni('{"cniVersion":"0.4.0","plugins":[{"type":"sriov"},{"type":"tuning","mtu":"9000"}]}'),
  // libcni list fields of the wrong type.
  cni('{"disableGC":"maybe","plugins":[{"type":"sriov"}],"cniVersion":"1.0.0"}'),
  cni('{"loadOnlyInlinedPlugins":1,"plugins":[{"type":"sriov"}],"cniVersion":"0.4.0","name":"rail-a"}'),
  // Networks annotation: whitespace only is one selection with an empty name to Multus, not none.
  selections(' '),
  selections('\t'),
  // "a@" is a selection without an interface to Multus.
  selections('a@'),
  selections('[{"name":"net-a","interfaceRequest":"eth1"}]'),
  // Spellings Go folds onto the selection fields.
  selections('[{"INterfaCe":"eth1","name":"net-a"}]'),
  selections('[{"NAMESPACE":"infra","name":"net-a"}]'),
  selections('[{"ip\u017f":["2001:db8::1"],"name":"net-a"}]'),
  selections('[{"name":"net-a","MAC":"aa:bb:cc:dd:ee:ff"}]'),
  selections('[{"DEVICEID":"0000:03:00.1","name":"net-a"}]'),
  selections('[{"INFINIBAND-GUID":"AA-BB-CC-DD-EE-FF","name":"net-a"}]'),
  selections('[{"name":"net-a","Name":"S"}]'),
  // Values Multus validates: MAC, IP/CIDR, default-route, cni-args numbers, wrong JSON types.
  selections('[{"MAC":"\u00e9","name":"net-a"}]'),
  selections('[{"name":"net-a","ips":["192.0.2.1/"]}]'),
  selections('[{"name":"net-a","ips":["192.0.2.1/99"]}]'),
  selections('[{"default-route":["x"],"name":"net-a"}]'),
  selections('[{"name":"net-a","cni-args":{"n":1e400}}]'),
  selections('[{"name":"net-a","IPs":{}}]'),
  // U+FEFF is whitespace to JavaScript's \s and trim(), not to Go's strings.TrimSpace or libcni's unicode.IsSpace.
  selections('net-a@\ufeffa'),
  selections('\ufeffnet-a'),
  selections('net-a\u0085'),
  // Folded and exact duplicate keys: Go takes the last.
  selections('[{"ips":[],"IPs":[],"name":"net-a"}]'),
  selections('[{"deviceID":"0000:03:00.1","deviceID":"0000:03:00.1","name":"net-a"}]'),
];
