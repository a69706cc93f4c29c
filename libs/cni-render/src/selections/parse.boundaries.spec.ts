// parseNetworkSelections: each refusal with its exact detail and the annotation it names, and the typed
// fields a selection carries only when the entry sets them.
import { describe, expect, it } from '@jest/globals';
import { parseNetworkSelections } from './parse.ts';

const POD = { kind: 'Pod', namespace: 'ai-workloads', name: 'gpu-pairs' };
const FIELD = { ...POD, field: 'annotation k8s.v1.cni.cncf.io/networks' };

function refusal(raw: string) {
  const result = parseNetworkSelections(raw, 'ai-workloads', POD);
  return result.ok ? 'parsed' : { code: result.error.code, detail: result.error.detail, object: result.error.object };
}

function typed(raw: string) {
  const result = parseNetworkSelections(raw, 'ai-workloads');
  if (!result.ok) throw result.error;
  return result.value.map((selection) => {
    const fields: Record<string, unknown> = { ...selection };
    delete fields['raw'];
    delete fields['text'];
    return fields;
  });
}

describe('parseNetworkSelections', () => {
  it.each([
    ['a/b/c', 'entry 0 "a/b/c" has more than one "/"'],
    ['net@a@b', 'entry 0 "net@a@b" has more than one "@"'],
    ['ns/', 'entry 0 "ns/" names no network'],
    ['storage, Bad', 'entry 1 " Bad": "Bad" is not a lowercase DNS label'],
    ['NS/net', 'entry 0 "NS/net": "NS" is not a lowercase DNS label'],
    ['net@a234567890123456', 'entry 0 "net@a234567890123456": interface "a234567890123456" is not a valid interface name'],
    ['net@a:b', 'entry 0 "net@a:b": interface "a:b" is not a valid interface name'],
    ['{"name":"a"}', 'a JSON networks annotation must be an array of selections'],
    ['[{"name":""}]', 'entry 0 has no name'],
    ['[{"name":"a","interface":"a:b"}]', 'entry 0: interface "a:b" is not a valid interface name'],
    ['[{"name":"a","namespace":5}]', 'entry 0 "namespace" must be a string, found the number 5'],
    ['[1]', 'entry 0 must be an object, found the number 1'],
    ['[null]', 'entry 0 must be an object, found null'],
    ['[{"name":"a"},[]]', 'entry 1 must be an object, found an array'],
    ['["x"]', 'entry 0 must be an object, found string'],
    ['[true]', 'entry 0 must be an object, found boolean'],
    ['[{"name":"a","NAME":"b"}]', 'entry 0 has keys "name" and "NAME", one field to Multus'],
    ['[{"name":"a","ips":"10.0.0.1"}]', 'entry 0 "ips" must be a list, found string'],
    ['[{"name":"a","ips":[5]}]', 'entry 0 "ips"[0] must be an IP address or CIDR string, found the number 5'],
    ['[{"name":"a","ips":["300.0.0.1"]}]', 'entry 0 "ips"[0] "300.0.0.1" is not an IP address'],
    ['[{"name":"a","ips":["192.0.2.1/24","10.0.0.1/33"]}]', 'entry 0 "ips"[1] "10.0.0.1/33" is not a CIDR'],
    ['[{"name":"a","mac":"zz"}]', 'entry 0: mac "zz" is not a hardware address'],
    ['[{"name":"a","infiniband-guid":"zz"}]', 'entry 0: infiniband-guid "zz" is not a hardware address'],
    ['[{"name":"a","portMappings":[null]}]', 'entry 0 "portMappings"[0] must be an object, found null'],
    ['[{"name":"a","portMappings":[{"hostPort":"x"}]}]', 'entry 0 "portMappings"[0].hostPort must be a 64-bit integer, found string'],
    ['[{"name":"a","portMappings":5}]', 'entry 0 "portMappings" must be a list, found the number 5'],
    ['[{"name":"a","cni-args":5}]', 'entry 0 "cni-args" must be an object, found the number 5'],
    ['[{"name":"a","cni-args":{"x":1e400}}]', 'entry 0 "cni-args".x 1e400 does not fit a float64'],
    ['[{"name":"a","bandwidth":5}]', 'entry 0 "bandwidth" must be an object, found the number 5'],
    ['[{"name":"a","namespace":{}}]', 'entry 0 "namespace" must be a string, found an object'],
    ['[{"name":"a","portMappings":[{"hostPort":1,"HostPort":2}]}]', 'entry 0 "portMappings"[0] has keys "hostPort" and "HostPort", one field to Multus'],
    ['[{"name":"a","portMappings":[{"protocol":5}]}]', 'entry 0 "portMappings"[0].protocol must be a string, found the number 5'],
    ['[{"name":"a","default-route":[5]}]', 'entry 0 "default-route"[0] the number 5 is not an IP address'],
  ])('refuses %s, naming the annotation', (raw, detail) => {
    expect(refusal(raw)).toEqual({ code: 'MalformedNetworkSelections', detail, object: FIELD });
  });

  it("refuses text that is not JSON with the parser's message, naming the annotation", () => {
    expect(refusal('[{"name":')).toEqual({ code: 'MalformedNetworkSelections', detail: 'unexpected end of input at offset 9', object: FIELD });
  });

  it('skips unknown and null fields of a port mapping and null or empty default routes', () => {
    expect(typed('[{"name":"a","portMappings":[{"x":1,"hostPort":null,"containerPort":8080,"protocol":"TCP"}],"default-route":[null,""]}]')).toStrictEqual([
      { name: 'a', namespace: 'ai-workloads', interface: undefined },
    ]);
  });

  it('reads options under any spelling Go folds to theirs, and keeps ips when later fields follow', () => {
    expect(typed('[{"name":"a","IPS":["192.0.2.1"],"MAC":"02:00:00:00:00:01","x-later":1}]')).toStrictEqual([
      { name: 'a', namespace: 'ai-workloads', interface: undefined, mac: '02:00:00:00:00:01', ips: ['192.0.2.1'] },
    ]);
  });

  it('names no object when the caller gives none', () => {
    const result = parseNetworkSelections('a/b/c', 'ai-workloads');
    expect(result.ok ? 'parsed' : result.error.object).toBeUndefined();
  });

  it('reads comma notation with Go whitespace trimming and a 15-byte interface', () => {
    expect(typed(' infra/mgmt @ mgmt0 ,storage,net@a23456789012345')).toEqual([
      { name: 'mgmt', namespace: 'infra', interface: 'mgmt0' },
      { name: 'storage', namespace: 'ai-workloads', interface: undefined },
      { name: 'net', namespace: 'ai-workloads', interface: 'a23456789012345' },
    ]);
  });

  it('sets the typed options only when the entry carries them', () => {
    expect(
      typed(
        '[{"name":"a","mac":"02:00:00:00:00:01","ips":["192.0.2.1/24"],"infiniband-guid":"00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22:33","deviceID":"0000:03:00.1"},{"name":"b","ips":null,"cni-args":null,"mac":"","deviceID":"","infiniband-guid":""},{"name":"c","interfaceRequest":"eth1"}]',
      ),
    ).toStrictEqual([
      {
        name: 'a',
        namespace: 'ai-workloads',
        interface: undefined,
        mac: '02:00:00:00:00:01',
        ips: ['192.0.2.1/24'],
        infinibandGUID: '00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22:33',
        deviceID: '0000:03:00.1',
      },
      { name: 'b', namespace: 'ai-workloads', interface: undefined },
      { name: 'c', namespace: 'ai-workloads', interface: 'eth1' },
    ]);
  });
});
