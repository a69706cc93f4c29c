import { describe, expect, it } from '@jest/globals';
import { changeCachedRoutes, goMapJson } from './result-cache-gateway.ts';

const ROUTES = [
  { dst: '10.0.0.0/8' },
  { dst: '0.0.0.0/0', gw: '10.1.0.1' },
  { dst: '::0/0', gw: '2001:db8::1' },
  { dst: '::/0', gw: '2001:db8::9' },
  { gw: '10.1.0.9' },
];

describe('changeCachedRoutes (DeleteDefaultGWCache, AddDefaultGWCache)', () => {
  it('removes IPv4 default routes by their dst text and drops routes without dst', () => {
    expect(changeCachedRoutes({ cniVersion: '1.0.0', routes: ROUTES }, { deleteV4: true, deleteV6: false, gateways: [] })).toEqual({
      cniVersion: '1.0.0',
      routes: [{ dst: '10.0.0.0/8' }, { dst: '::0/0', gw: '2001:db8::1' }, { dst: '::/0', gw: '2001:db8::9' }],
    });
  });

  it('removes IPv6 default routes written "::0/0" only, as upstream matches the text', () => {
    expect(changeCachedRoutes({ cniVersion: '0.4.0', routes: ROUTES }, { deleteV4: true, deleteV6: true, gateways: [] })).toEqual({
      cniVersion: '0.4.0',
      routes: [{ dst: '10.0.0.0/8' }, { dst: '::/0', gw: '2001:db8::9' }],
    });
  });

  it('removes the routes member when nothing is left, and appends the gateways asked for', () => {
    const result = { cniVersion: '1.1.0', ips: [], routes: [{ dst: '0.0.0.0/0', gw: '10.1.0.1' }] };
    expect(changeCachedRoutes(result, { deleteV4: true, deleteV6: true, gateways: [] })).toEqual({ cniVersion: '1.1.0', ips: [] });
    expect(changeCachedRoutes(result, { deleteV4: true, deleteV6: true, gateways: ['192.0.2.1', '2001:db8::1'] })).toEqual({
      cniVersion: '1.1.0',
      ips: [],
      routes: [
        { dst: '0.0.0.0/0', gw: '192.0.2.1' },
        { dst: '::0/0', gw: '2001:db8::1' },
      ],
    });
  });

  it('refuses a result of another version or with malformed routes', () => {
    expect(() => changeCachedRoutes({ cniVersion: '0.2.0' }, { deleteV4: true, deleteV6: true, gateways: [] })).toThrow('not supported version: "0.2.0"');
    expect(() => changeCachedRoutes({ cniVersion: '1.0.0', routes: {} }, { deleteV4: true, deleteV6: false, gateways: [] })).toThrow('wrong routes format');
    expect(() => changeCachedRoutes({ cniVersion: '1.0.0', routes: [{ dst: 5 }] }, { deleteV4: true, deleteV6: false, gateways: [] })).toThrow(
      'wrong dst format',
    );
  });
});

describe('goMapJson', () => {
  it('sorts keys at every level by their bytes and escapes HTML characters, as Go encodes a map', () => {
    expect(goMapJson({ b: 1, a: [{ z: '<&>', y: null }], B: true })).toBe('{"B":true,"a":[{"y":null,"z":"\\u003c\\u0026\\u003e"}],"b":1}');
  });
});
