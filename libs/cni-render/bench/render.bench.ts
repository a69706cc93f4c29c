// Rendering a 2 KiB conflist and merging managed entries into a Pod with 64 existing selections.
import { annotations } from '@sriov-dra/contract';
import { mergeManagedSelections } from '../src/selections/merge.ts';
import { renderShadowConfig } from '../src/shadow-config.ts';
import { CLAIM_A, POD, managed } from '../test/managed.ts';

const routes = Array.from({ length: 24 }, (_unused, i) => ({ dst: `198.51.${i}.0/24`, gw: '192.0.2.1' }));
const config = JSON.stringify(
  {
    cniVersion: '1.0.0',
    name: 'ai-workloads-rail-a',
    plugins: [
      {
        type: 'sriov',
        vlan: 1203,
        spoofchk: 'on',
        trust: 'off',
        min_tx_rate: 0,
        max_tx_rate: 100000,
        capabilities: { ips: true, mac: true },
        ipam: {
          type: 'whereabouts',
          network_name: 'ai-workloads-rail-a',
          range: '192.0.2.0/24',
          range_start: '192.0.2.10',
          range_end: '192.0.2.200',
          exclude: ['192.0.2.1/32'],
          routes,
        },
      },
      { type: 'tuning', mtu: 9000, sysctl: { 'net.ipv4.conf.IFNAME.arp_ignore': '1', 'net.ipv4.conf.IFNAME.arp_announce': '2' } },
    ],
  },
  null,
  2,
);
if (Buffer.byteLength(config) < 2048) throw new Error(`benchmark config is only ${Buffer.byteLength(config)} bytes`);
const source = { metadata: { name: 'rail-a-net', namespace: 'ai-workloads' }, spec: { config } };
if (!renderShadowConfig(source, '0000:03:00.1').ok) throw new Error('benchmark config does not render');

const existing = JSON.stringify(
  Array.from({ length: 64 }, (_unused, i) => ({ name: `net-${i}`, namespace: 'infra', interface: `net${i + 1}`, ips: [`192.0.2.${i + 1}/24`] })),
);
const pod = { ...POD, annotations: { [annotations.networks]: existing } };
const desired = [managed(CLAIM_A, '0000-03-00-1', 'dra0', 'rail-a-net'), managed(CLAIM_A, '0000-83-00-1', 'dra1', 'rail-b-net')];
if (!mergeManagedSelections({ pod, desired }).ok) throw new Error('benchmark merge fails');

export const benchmarks = [
  {
    name: `renderShadowConfig of a ${Buffer.byteLength(config)}-byte conflist`,
    targetMedianMs: 0.1,
    run: () => renderShadowConfig(source, '0000:03:00.1'),
    baseline: { name: 'JSON.parse + JSON.stringify of the same text', run: () => JSON.stringify(JSON.parse(config)) },
  },
  {
    name: 'mergeManagedSelections of 2 managed entries into 64 existing selections',
    targetMedianMs: 0.2,
    run: () => mergeManagedSelections({ pod, desired }),
    baseline: { name: 'JSON.parse of the networks annotation', run: () => JSON.parse(existing) as unknown },
  },
];
