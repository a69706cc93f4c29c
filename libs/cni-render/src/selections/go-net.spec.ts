import { describe, expect, it } from '@jest/globals';
import { goTrimSpace, isGoCIDR, isGoIP, isGoMac } from './go-net.ts';

// Expected values are what Go's net.ParseMAC, net.ParseIP and net.ParseCIDR return for each input.
describe('net.ParseMAC', () => {
  it.each([
    ['02:00:00:00:00:01', true],
    ['02-00-00-00-00-0A', true],
    ['0200.0000.0001', true],
    ['02:00:00:00:00:00:00:01', true], // EUI-64
    ['00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01', true], // IPoIB
    ['02:00:00:00:00', false],
    ['02:00-00:00:00:01', false],
    ['02:00:00:00:00:1', false],
    ['0200.0000.00001', false],
    ['02:00:00:00:00:0g', false],
    ['02:00:00:00:00:01:02', false],
    ['０2:00:00:00:00:01', false],
  ])('%s → %s', (text, valid) => {
    expect(isGoMac(text)).toBe(valid);
  });
});

describe('net.ParseIP', () => {
  it.each([
    ['192.0.2.1', true],
    ['0.0.0.0', true],
    ['01.2.3.4', false],
    ['1.2.3', false],
    ['1.2.3.256', false],
    ['1.2.3.4.', false],
    ['::', true],
    ['::1', true],
    ['2001:db8::1', true],
    ['2001:DB8:0:0:0:0:0:1', true],
    ['::ffff:192.0.2.1', true],
    ['1:2:3:4:5:6:1.2.3.4', true],
    ['1:2:3:4:5:1.2.3.4', false],
    ['1::2::3', false],
    ['1:2:3:4:5:6:7:8::', false],
    ['1:2:3:4:5:6:7:8:9', false],
    ['12345::', false],
    ['fe80::1%eth0', false],
    ['', false],
    [' 192.0.2.1', false],
  ])('%j → %s', (text, valid) => {
    expect(isGoIP(text)).toBe(valid);
  });
});

describe('net.ParseCIDR', () => {
  it.each([
    ['192.0.2.1/24', true],
    ['192.0.2.1/032', true],
    ['192.0.2.1/33', false],
    ['192.0.2.1/99', false],
    ['::ffff:192.0.2.1/99', true], // a 4-in-6 address has 128 bits
    ['2001:db8::/129', false],
    ['192.0.2.1/', false],
    ['192.0.2.1/+8', false],
    ['192.0.2.1/24/1', false],
    ['fe80::1%eth0/64', false],
  ])('%s → %s', (text, valid) => {
    expect(isGoCIDR(text)).toBe(valid);
  });
});

describe('strings.TrimSpace', () => {
  it('trims what unicode.IsSpace calls space, not what JavaScript does', () => {
    expect(goTrimSpace('\u0085 net1\u3000')).toBe('net1');
    expect(goTrimSpace('\ufeffnet1')).toBe('\ufeffnet1');
  });
});
