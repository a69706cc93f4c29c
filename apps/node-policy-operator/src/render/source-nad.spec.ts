import { describe, expect, it } from '@jest/globals';
import { isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { type SourceNadOptions, renderSourceNad } from './source-nad.ts';
import type { SriovNetwork } from './sriov-network.ts';

const RESOURCE_NAME = 'k8s.v1.cni.cncf.io/resourceName';
const OWNER_REF = 'sriovnetwork.openshift.io/owner-ref';
const OPERATOR: SourceNadOptions = { operatorNamespace: 'sriov-network-operator', resourcePrefix: 'openshift.io' };

function render(network: SriovNetwork, options: SourceNadOptions = OPERATOR) {
  const result = renderSourceNad(network, options);
  if (!result.ok) throw result.error;
  return result.value;
}

function renderError(network: SriovNetwork, options: SourceNadOptions = OPERATOR) {
  const result = renderSourceNad(network, options);
  if (result.ok) throw new Error(`expected a rejection, rendered ${result.value.config}`);
  return result.error;
}

function network(spec: Record<string, unknown>, namespace = 'tenant-a', name = 'net1'): SriovNetwork {
  return { metadata: { namespace, name }, spec: { resourceName: 'nic1', ...spec } };
}

/** The top-level keys after cniVersion and name, in order, read with the contract's order-keeping parser. */
function memberKeys(config: string): string[] {
  const parsed = parseStrictJson(config);
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new Error('config is not a JSON object');
  const keys = [...parsed.value.keys()];
  expect(keys.slice(0, 2)).toEqual(['cniVersion', 'name']);
  return keys.slice(2);
}

describe('renderSourceNad: upstream renderings', () => {
  // Inputs and spec.config of sriov-network-operator api/v1/testdata/TestRendering/{simple,chained}.golden
  // (commit 249e2001), rendered with an empty RESOURCE_PREFIX by a renderer outside the operator's
  // namespace check. The expected config is that golden config after json.Indent(…, "", "    "), the
  // formatting the upstream controller applies before it writes the NAD.
  const goldenOptions: SourceNadOptions = { operatorNamespace: 'ns', resourcePrefix: '' };
  const goldenAnnotations = {
    [RESOURCE_NAME]: '/testresource',
    [OWNER_REF]: 'SriovNetwork.sriovnetwork.openshift.io/ns/test',
  };

  it('reproduces TestRendering/simple', () => {
    const golden = '{ "cniVersion":"1.0.0", "name":"test","type":"sriov","vlan":0,"vlanQoS":0,"ipam":{} }';
    const nad = render(
      { metadata: { namespace: 'ns', name: 'test' }, spec: { networkNamespace: 'testnamespace', resourceName: 'testresource' } },
      goldenOptions,
    );
    expect(nad).toEqual({
      namespace: 'testnamespace',
      name: 'test',
      annotations: goldenAnnotations,
      config: `{
    "cniVersion": "1.0.0",
    "name": "test",
    "type": "sriov",
    "vlan": 0,
    "vlanQoS": 0,
    "ipam": {}
}`,
    });
    expect(JSON.parse(nad.config)).toEqual(JSON.parse(golden));
  });

  it('reproduces TestRendering/chained (metaPlugins exactly as the upstream test spells it)', () => {
    const golden =
      '{ "cniVersion":"1.0.0", "name":"test","plugins": [ {"type":"sriov","vlan":0,"vlanQoS":0,"ipam":{} },\n{ "type": "vrf", "vrfname": "blue" }\n] }';
    const metaPlugins = '\n\t\t\t\t\t{\n\t\t\t\t\t\t"type": "vrf",\n\t\t\t\t\t\t"vrfname": "blue"\n\t\t\t\t\t}\n\t\t\t\t\t';
    const nad = render(
      { metadata: { namespace: 'ns', name: 'test' }, spec: { networkNamespace: 'testnamespace', resourceName: 'testresource', metaPlugins } },
      goldenOptions,
    );
    expect(nad).toEqual({
      namespace: 'testnamespace',
      name: 'test',
      annotations: goldenAnnotations,
      config: `{
    "cniVersion": "1.0.0",
    "name": "test",
    "plugins": [
        {
            "type": "sriov",
            "vlan": 0,
            "vlanQoS": 0,
            "ipam": {}
        },
        {
            "type": "vrf",
            "vrfname": "blue"
        }
    ]
}`,
    });
    expect(JSON.parse(nad.config)).toEqual(JSON.parse(golden));
  });

  // The next two expected values were produced by running the upstream SriovNetwork.RenderNetAttDef
  // (commit 249e2001, RESOURCE_PREFIX as given) on the same inputs, then json.Indent(…, "", "    ").
  it('renders every field in upstream order, with ipam whitespace removed and raw JSON kept token for token', () => {
    const nad = render(
      network(
        {
          networkNamespace: 'workloads',
          resourceName: 'rail_a',
          capabilities: '{ "mac": true, "ips": true }',
          ipam: '{\n  "type": "whereabouts",\n  "range": "10.0.0.0/24",\n  "exclude": [ "10.0.0.1/32" ],\n  "big": 18446744073709551617,\n  "f": 1.50e+3,\n  "esc": "a\\u0041 b"\n}',
          vlan: 100,
          vlanQoS: 3,
          vlanProto: '802.1ad',
          spoofChk: 'off',
          trust: 'on',
          linkState: 'enable',
          minTxRate: 100,
          maxTxRate: 0,
          logLevel: 'debug',
          logFile: '/var/log/sriov-cni.log',
          metaPlugins: '{"type":"tuning","sysctl":{"net.ipv4.conf.IFNAME.accept_redirects":"1"}}, {"type":"sbr"}',
        },
        'sriov-network-operator',
        'rail-a',
      ),
      { operatorNamespace: 'sriov-network-operator', resourcePrefix: '' },
    );
    expect(nad.namespace).toBe('workloads');
    expect(nad.annotations).toEqual({
      [RESOURCE_NAME]: '/rail_a',
      [OWNER_REF]: 'SriovNetwork.sriovnetwork.openshift.io/sriov-network-operator/rail-a',
    });
    expect(nad.config).toBe(`{
    "cniVersion": "1.0.0",
    "name": "rail-a",
    "plugins": [
        {
            "type": "sriov",
            "vlan": 100,
            "spoofchk": "off",
            "trust": "on",
            "vlanQoS": 3,
            "vlanProto": "802.1ad",
            "min_tx_rate": 100,
            "max_tx_rate": 0,
            "capabilities": {
                "mac": true,
                "ips": true
            },
            "link_state": "enable",
            "logLevel": "debug",
            "logFile": "/var/log/sriov-cni.log",
            "ipam": {
                "type": "whereabouts",
                "range": "10.0.0.0/24",
                "exclude": [
                    "10.0.0.1/32"
                ],
                "big": 18446744073709551617,
                "f": 1.50e+3,
                "esc": "a\\u0041b"
            }
        },
        {
            "type": "tuning",
            "sysctl": {
                "net.ipv4.conf.IFNAME.accept_redirects": "1"
            }
        },
        {
            "type": "sbr"
        }
    ]
}`);
  });

  it('renders a tenant SriovNetwork into its own namespace with the prefixed resource name, keeping a big ipam integer', () => {
    const nad = render(
      network({
        linkState: 'auto',
        logLevel: 'info',
        ipam: '{ "type": "host-local", "subnet": "10.56.217.0/24", "routes": [{ "dst": "0.0.0.0/0" }], "gateway": "10.56.217.1", "max": 9007199254740993 }',
      }),
    );
    expect(nad).toEqual({
      namespace: 'tenant-a',
      name: 'net1',
      annotations: { [RESOURCE_NAME]: 'openshift.io/nic1', [OWNER_REF]: 'SriovNetwork.sriovnetwork.openshift.io/tenant-a/net1' },
      config: `{
    "cniVersion": "1.0.0",
    "name": "net1",
    "type": "sriov",
    "vlan": 0,
    "vlanQoS": 0,
    "link_state": "auto",
    "logLevel": "info",
    "ipam": {
        "type": "host-local",
        "subnet": "10.56.217.0/24",
        "routes": [
            {
                "dst": "0.0.0.0/0"
            }
        ],
        "gateway": "10.56.217.1",
        "max": 9007199254740993
    }
}`,
    });
  });
});

describe('renderSourceNad: which members appear', () => {
  it('writes type, vlan, vlanQoS and an empty ipam when nothing optional is set', () => {
    expect(memberKeys(render(network({})).config)).toEqual(['type', 'vlan', 'vlanQoS', 'ipam']);
    const config = render(network({})).config;
    expect(config).toContain('"vlan": 0,');
    expect(config).toContain('"vlanQoS": 0,');
    expect(config).toContain('"ipam": {}\n}');
  });

  // Each row: spec fields → the members of the sriov entry, in order. "" is Go's unset value.
  const rows: [string, Record<string, unknown>, string[]][] = [
    ['vlan set', { vlan: 4094 }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['spoofChk on', { spoofChk: 'on' }, ['type', 'vlan', 'spoofchk', 'vlanQoS', 'ipam']],
    ['spoofChk ""', { spoofChk: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['trust off', { trust: 'off' }, ['type', 'vlan', 'trust', 'vlanQoS', 'ipam']],
    ['trust ""', { trust: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['vlanProto', { vlanProto: '802.1Q' }, ['type', 'vlan', 'vlanQoS', 'vlanProto', 'ipam']],
    ['vlanProto ""', { vlanProto: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['minTxRate 0', { minTxRate: 0 }, ['type', 'vlan', 'vlanQoS', 'min_tx_rate', 'ipam']],
    ['minTxRate null', { minTxRate: null }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['maxTxRate 0', { maxTxRate: 0 }, ['type', 'vlan', 'vlanQoS', 'max_tx_rate', 'ipam']],
    ['maxTxRate null', { maxTxRate: null }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['capabilities', { capabilities: '{"ips":true}' }, ['type', 'vlan', 'vlanQoS', 'capabilities', 'ipam']],
    ['capabilities ""', { capabilities: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['linkState', { linkState: 'disable' }, ['type', 'vlan', 'vlanQoS', 'link_state', 'ipam']],
    ['linkState ""', { linkState: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['logLevel', { logLevel: 'warning' }, ['type', 'vlan', 'vlanQoS', 'logLevel', 'ipam']],
    ['logLevel ""', { logLevel: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['logFile', { logFile: '/tmp/cni.log' }, ['type', 'vlan', 'vlanQoS', 'logFile', 'ipam']],
    ['logFile ""', { logFile: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['ipam ""', { ipam: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['networkNamespace ""', { networkNamespace: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
    ['metaPlugins ""', { metaPlugins: '' }, ['type', 'vlan', 'vlanQoS', 'ipam']],
  ];
  it.each(rows)('%s', (_label, spec, keys) => {
    expect(memberKeys(render(network(spec)).config)).toEqual(keys);
  });

  it('writes each value as upstream does', () => {
    const config = render(
      network({
        vlan: 7,
        vlanQoS: 5,
        spoofChk: 'on',
        trust: 'off',
        vlanProto: '802.1AD',
        minTxRate: 10,
        maxTxRate: 2000,
        linkState: 'auto',
        logLevel: 'panic',
        logFile: '/l',
      }),
    ).config;
    expect(config).toBe(`{
    "cniVersion": "1.0.0",
    "name": "net1",
    "type": "sriov",
    "vlan": 7,
    "spoofchk": "on",
    "trust": "off",
    "vlanQoS": 5,
    "vlanProto": "802.1AD",
    "min_tx_rate": 10,
    "max_tx_rate": 2000,
    "link_state": "auto",
    "logLevel": "panic",
    "logFile": "/l",
    "ipam": {}
}`);
  });

  it('keeps the ipam member last and the sriov entry first when plugins are chained', () => {
    const config = render(network({ logFile: '/l', metaPlugins: '{"type":"tuning"}' })).config;
    expect(memberKeys(config)).toEqual(['plugins']);
    expect(config).toContain('"logFile": "/l",\n            "ipam": {}\n        },\n        {\n            "type": "tuning"\n        }\n    ]\n}');
  });

  it('escapes a logFile that upstream would splice into invalid JSON', () => {
    expect(render(network({ logFile: '/var/log/a"b\\c' })).config).toContain('"logFile": "/var/log/a\\"b\\\\c",');
  });
});

describe('renderSourceNad: ipam whitespace', () => {
  it('deletes every Go whitespace character, inside strings too, and nothing else', () => {
    const ipam = '{\t"type" :\r\n "host-local",\v"note": "a b\u00a0c\u0085d\u2003e\u3000f\fg\ufeffh", "x": "\\u0020"}';
    expect(render(network({ ipam })).config).toContain(`    "ipam": {
        "type": "host-local",
        "note": "abcdefg\ufeffh",
        "x": "\\u0020"
    }
}`);
  });
});

describe('renderSourceNad: namespace rule', () => {
  it('places the NAD in spec.networkNamespace for a SriovNetwork in the operator namespace', () => {
    const nad = render(network({ networkNamespace: 'workloads' }, 'sriov-network-operator'));
    expect([nad.namespace, nad.annotations[OWNER_REF]]).toEqual(['workloads', 'SriovNetwork.sriovnetwork.openshift.io/sriov-network-operator/net1']);
  });

  it('keeps the NAD beside a SriovNetwork without networkNamespace, in the operator namespace or not', () => {
    expect(render(network({}, 'sriov-network-operator')).namespace).toBe('sriov-network-operator');
    expect(render(network({}, 'tenant-b')).namespace).toBe('tenant-b');
  });

  it('rejects networkNamespace on a SriovNetwork outside the operator namespace', () => {
    const error = renderError(network({ networkNamespace: 'workloads' }, 'tenant-b'));
    expect([error.code, error.subject, error.field]).toEqual(['NetworkAttachmentDefinitionInvalid', 'tenant-b/net1', 'spec.networkNamespace']);
    expect(error.message).toContain('sriov-network-operator');
  });

  it('rejects it even when it names the SriovNetwork’s own namespace', () => {
    expect(renderError(network({ networkNamespace: 'tenant-b' }, 'tenant-b')).code).toBe('NetworkAttachmentDefinitionInvalid');
  });
});

describe('renderSourceNad: malformed raw JSON', () => {
  const rows: [string, Record<string, unknown>, string, string][] = [
    ['capabilities not JSON', { capabilities: '{"mac": true' }, 'spec.capabilities', 'is not valid JSON'],
    ['capabilities not an object', { capabilities: '["mac"]' }, 'spec.capabilities', 'must be a JSON object'],
    ['capabilities with a duplicate key', { capabilities: '{"mac":true,"mac":false}' }, 'spec.capabilities', 'duplicate key "mac"'],
    ['ipam not JSON', { ipam: '{"type": host-local}' }, 'spec.ipam', 'is not valid JSON once whitespace is removed'],
    ['ipam only whitespace', { ipam: ' \n ' }, 'spec.ipam', 'unexpected end of input'],
    ['ipam not an object', { ipam: '"host-local"' }, 'spec.ipam', 'must be a JSON object'],
    ['ipam with a duplicate key', { ipam: '{"type":"a", "type":"b"}' }, 'spec.ipam', 'duplicate key "type"'],
    ['metaPlugins with a trailing comma', { metaPlugins: '{"type":"vrf"},' }, 'spec.metaPlugins', 'is not a valid list of JSON objects'],
    ['metaPlugins breaking out of the list', { metaPlugins: '{"a":1}] , [{"b":2}' }, 'spec.metaPlugins', 'is not a valid list of JSON objects'],
    ['metaPlugins only whitespace', { metaPlugins: '  ' }, 'spec.metaPlugins', 'names no plugin'],
    ['metaPlugins listing a string', { metaPlugins: '{"type":"vrf"}, "sbr"' }, 'spec.metaPlugins', 'must list JSON objects only'],
    ['metaPlugins with a duplicate key', { metaPlugins: '{"type":"vrf","type":"sbr"}' }, 'spec.metaPlugins', 'duplicate key "type"'],
  ];
  it.each(rows)('%s', (_label, spec, field, detail) => {
    const error = renderError(network(spec));
    expect([error.code, error.field]).toEqual(['MalformedSriovNetworkJson', field]);
    expect(error.message).toContain(detail);
  });

  it('counts metaPlugins offsets in the field itself', () => {
    expect(renderError(network({ metaPlugins: '{"type":"vrf"} x' })).message).toContain('at offset 15');
  });
});

describe('renderSourceNad: invalid SriovNetwork', () => {
  const rows: [string, unknown, string | undefined][] = [
    ['vlan above 4094', network({ vlan: 4095 }), 'spec.vlan'],
    ['vlanQoS above 7', network({ vlanQoS: 8 }), 'spec.vlanQoS'],
    ['unknown vlanProto', network({ vlanProto: '802.1x' }), 'spec.vlanProto'],
    ['unknown spoofChk', network({ spoofChk: 'yes' }), 'spec.spoofChk'],
    ['negative minTxRate', network({ minTxRate: -1 }), 'spec.minTxRate'],
    ['fractional maxTxRate', network({ maxTxRate: 1.5 }), 'spec.maxTxRate'],
    ['unknown logLevel', network({ logLevel: 'trace' }), 'spec.logLevel'],
    ['capabilities not a string', network({ capabilities: { mac: true } }), 'spec.capabilities'],
    ['missing resourceName', { metadata: { namespace: 'tenant-a', name: 'net1' }, spec: {} }, 'spec.resourceName'],
    ['invalid networkNamespace', network({ networkNamespace: 'Work_Loads' }, 'sriov-network-operator'), 'spec.networkNamespace'],
    ['missing namespace', { metadata: { name: 'net1' }, spec: { resourceName: 'nic1' } }, 'metadata.namespace'],
    ['not an object', null, undefined],
  ];
  it.each(rows)('%s', (_label, input, field) => {
    const error = renderError(input as SriovNetwork);
    expect([error.code, error.field]).toEqual(['InvalidSriovNetwork', field]);
  });

  it('names the object when it can and never echoes an oversized name', () => {
    expect(renderError(network({ vlan: -1 }, 'tenant-c', 'n')).subject).toBe('tenant-c/n');
    expect(renderError({ metadata: { namespace: 'x'.repeat(300), name: 7 } } as unknown as SriovNetwork).subject).toBe('?/?');
  });
});
