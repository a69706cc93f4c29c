import { describe, expect, it } from '@jest/globals';
import { CIDR_CASES, IP_CASES, MAC_CASES } from '../../test/go-net-cases.ts';
import { goTrimSpace, isGoCIDR, isGoIP, isGoMac } from './go-net.ts';

// The expected values are Go's; the differential suite checks each row against the Go code itself.
describe('net.ParseMAC', () => {
  it.each(MAC_CASES)('%j → %s', (text, valid) => {
    expect(isGoMac(text)).toBe(valid);
  });
});

describe('net.ParseIP', () => {
  it.each(IP_CASES)('%j → %s', (text, valid) => {
    expect(isGoIP(text)).toBe(valid);
  });
});

describe('net.ParseCIDR', () => {
  it.each(CIDR_CASES)('%j → %s', (text, valid) => {
    expect(isGoCIDR(text)).toBe(valid);
  });
});

describe('strings.TrimSpace', () => {
  it.each([
    ['\u0085 net1\u3000', 'net1'],
    ['\ufeffnet1', '\ufeffnet1'], // U+FEFF is no space to Go, though JavaScript trims it
    ['\t\n\v\f\r \u00a0net1\u2028\u2029\u202f\u205f', 'net1'],
    ['  a b  ', 'a b'],
    ['net1', 'net1'],
    [' \t\u3000', ''],
    ['', ''],
  ])('%j → %j', (text, trimmed) => {
    expect(goTrimSpace(text)).toBe(trimmed);
  });
});
