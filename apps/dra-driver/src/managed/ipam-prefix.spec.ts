import { describe, expect, it } from '@jest/globals';
import { addressWithPrefix } from './ipam-prefix.ts';

const single = (ipam: Record<string, unknown>): string => JSON.stringify({ cniVersion: '1.0.0', name: 'rail-a', type: 'sriov', ipam });

describe('addressWithPrefix', () => {
  it('takes host-local’s prefix from the range holding the address, or from its older subnet field', () => {
    const ranges = single({ type: 'host-local', ranges: [[{ subnet: '192.0.2.0/24' }], [{ subnet: '10.1.0.0/16' }]] });
    expect(addressWithPrefix('10.1.4.2', ranges)).toBe('10.1.4.2/16');
    expect(addressWithPrefix('192.0.2.10', ranges)).toBe('192.0.2.10/24');
    expect(addressWithPrefix('192.0.2.10', single({ type: 'host-local', subnet: '192.0.2.0/25' }))).toBe('192.0.2.10/25');
  });

  it('takes whereabouts’ prefix from range or ipRanges, IPv6 too', () => {
    expect(addressWithPrefix('198.51.100.7', single({ type: 'whereabouts', range: '198.51.100.0/24' }))).toBe('198.51.100.7/24');
    const dual = single({ type: 'whereabouts', ipRanges: [{ range: '198.51.100.0/23' }, { range: '2001:db8:1::/64' }] });
    expect(addressWithPrefix('2001:db8:1::9', dual)).toBe('2001:db8:1::9/64');
    expect(addressWithPrefix('198.51.101.9', dual)).toBe('198.51.101.9/23');
  });

  it('takes static’s prefix from the entry of that very address, in any IPv6 spelling', () => {
    const config = single({ type: 'static', addresses: [{ address: '10.0.0.6/24' }, { address: '10.0.0.5/16' }, { address: '2001:db8::5/48' }] });
    expect(addressWithPrefix('10.0.0.5', config)).toBe('10.0.0.5/16');
    expect(addressWithPrefix('2001:0db8:0::5', config)).toBe('2001:0db8:0::5/48');
  });

  it('reads the IPAM of a conflist’s plugin', () => {
    const conflist = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'rail-a',
      plugins: [{ type: 'sriov', ipam: { type: 'host-local', ranges: [[{ subnet: '192.0.2.0/24' }]] } }, { type: 'tuning' }],
    });
    expect(addressWithPrefix('192.0.2.10', conflist)).toBe('192.0.2.10/24');
  });

  it('gives a host route where the configuration cannot tell the prefix', () => {
    expect(addressWithPrefix('192.0.2.10', single({ type: 'dhcp' }))).toBe('192.0.2.10/32');
    expect(addressWithPrefix('2001:db8::10', single({ type: 'dhcp' }))).toBe('2001:db8::10/128');
    // An address outside every configured range was not handed out by that range.
    expect(addressWithPrefix('203.0.113.1', single({ type: 'host-local', ranges: [[{ subnet: '192.0.2.0/24' }]] }))).toBe('203.0.113.1/32');
    expect(addressWithPrefix('192.0.2.10', single({ type: 'whereabouts', range: 'not-a-cidr' }))).toBe('192.0.2.10/32');
    expect(addressWithPrefix('192.0.2.10', '{"name":')).toBe('192.0.2.10/32');
    expect(addressWithPrefix('192.0.2.10', JSON.stringify({ name: 'rail-a', type: 'sriov' }))).toBe('192.0.2.10/32');
  });

  it('refuses what is not an address', () => {
    expect(addressWithPrefix('192.0.2.10/24', single({ type: 'dhcp' }))).toBeUndefined();
    expect(addressWithPrefix('eth0', single({ type: 'dhcp' }))).toBeUndefined();
  });
});
