// Expectations written from the NAD client v1.7.6 (CreateNetworkStatuses, SetNetworkStatus's
// json.MarshalIndent(status, "", "    ") joined by ",") and Go's net.IP formatting.
import { describe, expect, it } from '@jest/globals';
import { buildNetworkStatuses, serializeNetworkStatuses } from './network-status.ts';

const SRIOV_RESULT = {
  cniVersion: '1.0.0',
  interfaces: [{ name: 'net1', mac: '02:00:00:00:00:01', mtu: 9000, sandbox: '/var/run/netns/pod' }],
  ips: [
    { address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 0 },
    { address: 'fd00::0005/64', interface: 0 },
  ],
  routes: [
    { dst: '0.0.0.0/0', gw: '10.0.0.1' },
    { dst: '10.1.0.0/16', gw: '10.0.0.1' },
  ],
  dns: { nameservers: ['10.0.0.53'], search: ['svc'] },
};

const BRIDGE_RESULT = {
  cniVersion: '1.0.0',
  interfaces: [
    { name: 'cni0', mac: '0a:58:0a:f4:00:01' },
    { name: 'veth1234', mac: '6e:00:00:00:00:01' },
    { name: 'eth0', mac: '0a:58:0a:f4:00:07', sandbox: '/var/run/netns/pod' },
  ],
  ips: [{ address: '10.244.0.7/24', gateway: '10.244.0.1', interface: 2 }],
  routes: [{ dst: '0.0.0.0/0' }],
};

const EXPECTED_ANNOTATION = `[{
    "name": "pods/rail-a",
    "interface": "net1",
    "ips": [
        "10.0.0.5",
        "fd00::5"
    ],
    "mac": "02:00:00:00:00:01",
    "mtu": 9000,
    "dns": {
        "nameservers": [
            "10.0.0.53"
        ],
        "search": [
            "svc"
        ]
    },
    "device-info": {
        "type": "pci",
        "version": "1.1.0",
        "pci": {
            "pci-address": "0000:03:00.1"
        }
    },
    "gateway": [
        "10.0.0.1"
    ]
},{
    "name": "cbr0",
    "interface": "eth0",
    "ips": [
        "10.244.0.7"
    ],
    "mac": "0a:58:0a:f4:00:07",
    "default": true,
    "dns": {},
    "gateway": [
        "\\u003cnil\\u003e"
    ]
}]`;

describe('network-status', () => {
  it('builds and formats statuses exactly as upstream writes them', () => {
    const statuses = [
      ...buildNetworkStatuses('pods/rail-a', SRIOV_RESULT, false, { type: 'pci', version: '1.1.0', pci: { 'pci-address': '0000:03:00.1' } }),
      ...buildNetworkStatuses('cbr0', BRIDGE_RESULT, true),
    ];
    expect(serializeNetworkStatuses(statuses)).toBe(EXPECTED_ANNOTATION);
  });

  it('gives each sandbox interface its IPs, unassigned IPs to the last one, default to the gateway interface', () => {
    const result = {
      interfaces: [
        { name: 'a', sandbox: '/ns' },
        { name: 'b', sandbox: '/ns' },
      ],
      ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 1 }, { address: '10.0.0.3/24' }, { address: '::ffff:10.0.0.4/120', interface: 0 }],
    };
    expect(buildNetworkStatuses('n', result, true)).toEqual([
      { name: 'n', interface: 'a', ips: ['10.0.0.4'], dns: {} },
      { name: 'n', interface: 'b', ips: ['10.0.0.2', '10.0.0.3'], default: true, dns: {} },
    ]);
    // Without a gateway, the first sandbox interface is the default one.
    expect(buildNetworkStatuses('n', { ...result, ips: [] }, true).map((status) => status.default)).toEqual([true, undefined]);
  });

  it('reports nothing for a result without interfaces, and refuses addresses Go cannot parse', () => {
    expect(buildNetworkStatuses('n', { ips: [{ address: '10.0.0.2/24' }] }, false)).toEqual([]);
    expect(() => buildNetworkStatuses('n', { interfaces: [{ name: 'a', sandbox: '/ns' }], ips: [{ address: '10.0.0.2' }] }, false)).toThrow(
      /InvalidCniResult: delegate n: "10.0.0.2" is not a CIDR/,
    );
    expect(() => buildNetworkStatuses('n', { interfaces: 'a' }, false)).toThrow(/InvalidCniResult/);
  });

  it('escapes as Go does', () => {
    expect(serializeNetworkStatuses([{ name: 'a<b>&c', dns: {} }])).toBe('[{\n    "name": "a\\u003cb\\u003e\\u0026c",\n    "dns": {}\n}]');
  });
});
