import { describe, expect, it } from '@jest/globals';
import { type CniResult, convertResult, parseResult, toResult100 } from './result-version.ts';

function parsed(value: unknown): CniResult {
  const outcome = parseResult(value);
  if (!outcome.ok) throw new Error(outcome.problem);
  return outcome.result;
}

const RESULT_040 = {
  cniVersion: '0.4.0',
  interfaces: [{ name: 'net1', mac: '0a:00:00:00:00:01', sandbox: '/var/run/netns/x', mtu: 9000 }],
  ips: [
    { version: '4', interface: 0, address: '10.1.0.5/24', gateway: '10.1.0.1' },
    { version: '6', address: 'fd00::5/64' },
  ],
  routes: [{ dst: '0.0.0.0/0', gw: '10.1.0.1' }],
  dns: {},
};

describe('parseResult', () => {
  it('keeps a 0.4.0 result in its struct form: ip versions, dns always present, no fields 0.4.0 lacks', () => {
    expect(parsed(RESULT_040)).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'net1', mac: '0a:00:00:00:00:01', sandbox: '/var/run/netns/x' }],
      ips: [
        { version: '4', interface: 0, address: '10.1.0.5/24', gateway: '10.1.0.1' },
        { version: '6', address: 'fd00::5/64' },
      ],
      routes: [{ dst: '0.0.0.0/0', gw: '10.1.0.1' }],
      dns: {},
    });
  });

  it('drops unknown and empty fields of a 1.x result, keeps zero-valued pointers (interface 0, table 0)', () => {
    expect(
      parsed({
        cniVersion: '1.1.0',
        extra: true,
        interfaces: [{ name: 'net1', mtu: 0, pciID: '0000:03:00.1', socketPath: '', unknown: 1 }],
        ips: [{ interface: 0, address: '10.1.0.5/24', gateway: null }],
        routes: [{ dst: '10.2.0.0/16', table: 0, priority: 0, scope: 253 }],
        dns: { nameservers: [], domain: '' },
      }),
    ).toEqual({
      cniVersion: '1.1.0',
      interfaces: [{ name: 'net1', pciID: '0000:03:00.1' }],
      ips: [{ interface: 0, address: '10.1.0.5/24' }],
      routes: [{ dst: '10.2.0.0/16', table: 0, scope: 253 }],
    });
  });

  it.each([
    ['an unsupported version', { cniVersion: '0.3.1' }],
    ['no version', { ips: [] }],
    ['an address without prefix', { cniVersion: '1.0.0', ips: [{ address: '10.1.0.5' }] }],
    ['a prefix beyond the family', { cniVersion: '1.0.0', ips: [{ address: '10.1.0.5/33' }] }],
    ['a fractional mtu', { cniVersion: '1.0.0', interfaces: [{ name: 'a', mtu: 1500.5 }] }],
    ['a gateway that is not an IP', { cniVersion: '1.0.0', ips: [{ address: '10.1.0.5/24', gateway: 'router' }] }],
    ['an array', []],
  ])('refuses %s', (_what, value) => {
    expect(parseResult(value).ok).toBe(false);
  });
});

describe('convertResult and toResult100', () => {
  it('0.4.0 to 1.x drops each ip version and the empty dns; the daemon answers in 1.1.0 as Multus v4.2.3 does', () => {
    expect(toResult100(parsed(RESULT_040))).toEqual({
      cniVersion: '1.1.0',
      interfaces: [{ name: 'net1', mac: '0a:00:00:00:00:01', sandbox: '/var/run/netns/x' }],
      ips: [{ interface: 0, address: '10.1.0.5/24', gateway: '10.1.0.1' }, { address: 'fd00::5/64' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.1.0.1' }],
    });
  });

  it('1.x to 0.4.0 derives each ip version from the address and drops mtu, socketPath and pciID', () => {
    const result = parsed({
      cniVersion: '1.0.0',
      interfaces: [{ name: 'net1', mtu: 1400, socketPath: '/s', pciID: '0000:03:00.1' }],
      ips: [{ address: '10.1.0.5/24' }, { address: '::ffff:10.1.0.6/120' }, { address: 'fd00::5/64' }],
      dns: { nameservers: ['10.1.0.53'] },
    });
    expect(convertResult(result, '0.4.0')).toEqual({
      ok: true,
      result: {
        cniVersion: '0.4.0',
        interfaces: [{ name: 'net1' }],
        ips: [
          { version: '4', address: '10.1.0.5/24' },
          { version: '4', address: '::ffff:10.1.0.6/120' },
          { version: '6', address: 'fd00::5/64' },
        ],
        dns: { nameservers: ['10.1.0.53'] },
      },
    });
  });

  it('1.0.0 to 1.1.0 changes only the version', () => {
    const result = parsed({ cniVersion: '1.0.0', interfaces: [{ name: 'net1', mtu: 1400 }], ips: [{ address: '10.1.0.5/24' }] });
    expect(toResult100(result)).toEqual({ cniVersion: '1.1.0', interfaces: [{ name: 'net1', mtu: 1400 }], ips: [{ address: '10.1.0.5/24' }] });
  });

  it('refuses a target version it cannot produce', () => {
    expect(convertResult(parsed({ cniVersion: '1.0.0' }), '0.3.1').ok).toBe(false);
  });
});
