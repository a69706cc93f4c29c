import { describe, expect, it } from '@jest/globals';
import { checkAttributeBudget } from './attribute-budget.ts';
import { qualifiedAttributeName } from './attribute-name.ts';

const names = (prefix: string, count: number) => Array.from({ length: count }, (_unused, index) => `${prefix}${index}`);
const device = { kind: 'Device', name: 'worker-a/0000-03-00-1' };

describe('qualifiedAttributeName', () => {
  it.each([
    ['pciAddress', 'sriovnetwork.k8snetworkplumbingwg.io/pciAddress'],
    ['__proto__', 'sriovnetwork.k8snetworkplumbingwg.io/__proto__'],
    ['', 'sriovnetwork.k8snetworkplumbingwg.io/'],
    ['example.com/x', 'example.com/x'],
    ['sriovnetwork.k8snetworkplumbingwg.io/x', 'sriovnetwork.k8snetworkplumbingwg.io/x'],
    ['a/b/c', 'a/b/c'],
  ])('%j is %j', (name, expected) => {
    expect(qualifiedAttributeName(name)).toBe(expected);
  });
});

describe('checkAttributeBudget', () => {
  it.each([
    ['32 attributes', names('example.com/a', 32), [], 32],
    ['20 attributes and 12 capacities', names('example.com/a', 20), names('example.com/c', 12), 32],
    ['0 attributes and 32 capacities', [], names('example.com/c', 32), 32],
    ['a bare and a qualified spelling of one name', ['x', 'sriovnetwork.k8snetworkplumbingwg.io/x'], [], 1],
    ['a bare and a qualified spelling of one capacity', [], ['memory', 'sriovnetwork.k8snetworkplumbingwg.io/memory'], 1],
    ['a name repeated', ['example.com/a', 'example.com/a'], ['memory', 'memory'], 2],
    ['an attribute and a capacity of the same name', ['example.com/a'], ['example.com/a'], 2],
    ['nothing', [], [], 0],
  ])('%s count %d', (_case, attributes, capacities, expected) => {
    expect(checkAttributeBudget({ attributes, capacities }, device)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['33 attributes', names('example.com/a', 33), [], '33 attributes and 0 capacities make 33, over the limit of 32'],
    ['31 attributes and 2 capacities', names('example.com/a', 31), ['a', 'b'], '31 attributes and 2 capacities make 33, over the limit of 32'],
    ['0 attributes and 33 capacities', [], names('example.com/c', 33), '0 attributes and 33 capacities make 33, over the limit of 32'],
  ])('rejects %s, naming the device', (_case, attributes, capacities, detail) => {
    const result = checkAttributeBudget({ attributes, capacities }, device);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.detail, result.error.object]).toEqual(['AttributeBudgetExceeded', detail, device]);
  });
});
