import { describe, expect, it } from '@jest/globals';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import { type GatewayPlan, NO_GATEWAY_PLAN, defaultRouteChange, gatewayRequestOf, markGatewayFilters } from './default-route.ts';

const SUBJECT = 'Pod pods/trainer';

function selection(json: string): NetworkSelection {
  const parsed = parseNetworkSelections(`[${json}]`, 'pods');
  if (!parsed.ok) throw parsed.error;
  const [first] = parsed.value;
  if (first === undefined) throw new Error('one selection expected');
  return first;
}

function requestOf(json: string): readonly string[] | undefined | string {
  try {
    return gatewayRequestOf(selection(json), SUBJECT);
  } catch (error) {
    return (error as Error).message.split(' \u2014 ')[0];
  }
}

describe('gatewayRequestOf', () => {
  it.each([
    ['no default-route', '{"name":"a"}', undefined],
    ['null', '{"name":"a","default-route":null}', undefined],
    ['an empty list', '{"name":"a","default-route":[]}', []],
    ['an IPv4 gateway', '{"name":"a","default-route":["192.0.2.1"]}', ['192.0.2.1']],
    ['a key Go matches case-insensitively', '{"name":"a","Default-Route":["192.0.2.1"]}', ['192.0.2.1']],
    ['IPv6 as Go prints it', '{"name":"a","default-route":["2001:0DB8:0:0:0:0:0:1"]}', ['2001:db8::1']],
    ['IPv4-mapped IPv6 as IPv4, as Go decides the family', '{"name":"a","default-route":["::ffff:192.0.2.7"]}', ['192.0.2.7']],
    ['IPv6 that only contains the mapped prefix, as IPv6', '{"name":"a","default-route":["64:ff9b::ffff:c000:207"]}', ['64:ff9b::ffff:c000:207']],
    ['IPv6 that only starts like a mapped address, as IPv6', '{"name":"a","default-route":["::ffff:c000:207:1"]}', ['::ffff:c000:207:1']],
    ['default-route among other members', '{"name":"a","default-route":["192.0.2.1"],"interface":"net1"}', ['192.0.2.1']],
    [
      'null inside the list',
      '{"name":"a","default-route":[null]}',
      'InvalidDefaultRoute: Pod pods/trainer: network pods/a: default-route[0] is not an IP address',
    ],
    [
      'an empty string',
      '{"name":"a","default-route":["192.0.2.1",""]}',
      'InvalidDefaultRoute: Pod pods/trainer: network pods/a: default-route[1] is not an IP address',
    ],
  ])('%s', (_case, json, expected) => {
    expect(requestOf(json)).toEqual(expected);
  });

  it('is undefined for a delegate without a selection (a cluster or default network)', () => {
    expect(gatewayRequestOf(undefined, SUBJECT)).toBeUndefined();
  });
});

function marks(requests: readonly (readonly string[] | undefined)[], podHasNetworks = true): string[] | string {
  try {
    return markGatewayFilters(requests, podHasNetworks, SUBJECT).map(
      (plan) => `${plan.gatewayRequest?.join(',') ?? '-'} v4:${plan.filterV4Gateway ? 'filter' : 'keep'} v6:${plan.filterV6Gateway ? 'filter' : 'keep'}`,
    );
  } catch (error) {
    return (error as Error).message.split(' \u2014 ')[0] ?? '';
  }
}

describe('markGatewayFilters (CheckGatewayConfig)', () => {
  it('marks nothing when no delegate asks for a gateway', () => {
    expect(marks([undefined, undefined])).toEqual(['- v4:keep v6:keep', '- v4:keep v6:keep']);
  });

  it('filters every family a delegate asks no gateway of', () => {
    expect(marks([undefined, ['192.0.2.1'], undefined])).toEqual(['- v4:filter v6:filter', '192.0.2.1 v4:keep v6:filter', '- v4:filter v6:filter']);
    expect(marks([undefined, ['192.0.2.1', '2001:db8::1']])).toEqual(['- v4:filter v6:filter', '192.0.2.1,2001:db8::1 v4:keep v6:keep']);
  });

  it('filters the IPv4 default route of a delegate asking only for an IPv6 gateway', () => {
    expect(marks([['2001:db8::1'], undefined])).toEqual(['2001:db8::1 v4:filter v6:keep', '- v4:filter v6:filter']);
  });

  it('filters every delegate, the asking one included, for an empty default-route', () => {
    expect(marks([undefined, []])).toEqual(['- v4:filter v6:filter', ' v4:filter v6:filter']);
  });

  it('does not run without a networks annotation: a default-network override keeps its request unfiltered', () => {
    expect(marks([['192.0.2.1'], undefined], false)).toEqual(['192.0.2.1 v4:keep v6:keep', '- v4:keep v6:keep']);
  });

  it('refuses more than one gateway of a family over all delegates', () => {
    expect(marks([['192.0.2.1'], ['198.51.100.1']])).toBe(
      "DefaultRouteEcmpUnsupported: Pod pods/trainer: the Pod's networks ask for 2 IPv4 and 0 IPv6 default gateways (192.0.2.1, 198.51.100.1)",
    );
    expect(marks([['2001:db8::1', '2001:db8::2']])).toBe(
      "DefaultRouteEcmpUnsupported: Pod pods/trainer: the Pod's networks ask for 0 IPv4 and 2 IPv6 default gateways (2001:db8::1, 2001:db8::2)",
    );
  });
});

describe('defaultRouteChange', () => {
  const result = { cniVersion: '1.1.0', interfaces: [{ name: 'net1' }], ips: [] };
  const plan = (partial: Partial<GatewayPlan>): GatewayPlan => ({ ...NO_GATEWAY_PLAN, ...partial });

  it('changes nothing on an unmarked delegate or one whose plugin reported no interface and no IP', () => {
    expect(defaultRouteChange(NO_GATEWAY_PLAN, result)).toBeUndefined();
    expect(defaultRouteChange(plan({ filterV4Gateway: true, filterV6Gateway: true }), { cniVersion: '1.1.0' })).toBeUndefined();
  });

  it('removes the default routes of a filtered delegate', () => {
    expect(defaultRouteChange(plan({ filterV6Gateway: true }), { cniVersion: '1.1.0', interfaces: [{ name: 'net1' }] })).toEqual({
      deleteV4: false,
      deleteV6: true,
      gateways: [],
    });
    expect(defaultRouteChange(plan({ filterV4Gateway: true, filterV6Gateway: true }), result)).toEqual({ deleteV4: true, deleteV6: true, gateways: [] });
    expect(defaultRouteChange(plan({ filterV4Gateway: true }), { cniVersion: '1.1.0', ips: [] })).toEqual({ deleteV4: true, deleteV6: false, gateways: [] });
  });

  it('replaces the default routes of a delegate asking for a gateway, in both families as upstream does', () => {
    expect(defaultRouteChange(plan({ gatewayRequest: ['192.0.2.1'], filterV6Gateway: true }), result)).toEqual({
      deleteV4: true,
      deleteV6: true,
      gateways: ['192.0.2.1'],
    });
    expect(defaultRouteChange(plan({ gatewayRequest: ['192.0.2.1'] }), result)).toEqual({ deleteV4: true, deleteV6: true, gateways: ['192.0.2.1'] });
  });
});
