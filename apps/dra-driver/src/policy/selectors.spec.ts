import { describe, expect, it } from '@jest/globals';
import { matchesLabelSelector } from './label-selector.ts';
import { type NodeSelector, matchesNodeSelector } from './node-selector.ts';
import { type SelectorRequirement, matchesRequirement } from './selector-requirement.ts';

const labels = { zone: 'a', rack: '12', 'example.com/gpu': 'true', word: 'twelve' };

function value<T>(result: { ok: true; value: T } | { ok: false; error: { code: string } }): T | string {
  return result.ok ? result.value : result.error.code;
}

describe('matchesRequirement', () => {
  it.each<[string, SelectorRequirement, boolean | string]>([
    ['In, listed', { key: 'zone', operator: 'In', values: ['b', 'a'] }, true],
    ['In, not listed', { key: 'zone', operator: 'In', values: ['b'] }, false],
    ['In, key absent', { key: 'missing', operator: 'In', values: ['a'] }, false],
    ['NotIn, listed', { key: 'zone', operator: 'NotIn', values: ['a'] }, false],
    ['NotIn, not listed', { key: 'zone', operator: 'NotIn', values: ['b'] }, true],
    ['NotIn, key absent', { key: 'missing', operator: 'NotIn', values: ['a'] }, true],
    ['Exists, present', { key: 'zone', operator: 'Exists' }, true],
    ['Exists, absent', { key: 'missing', operator: 'Exists' }, false],
    ['DoesNotExist, present', { key: 'zone', operator: 'DoesNotExist' }, false],
    ['DoesNotExist, absent', { key: 'missing', operator: 'DoesNotExist', values: [] }, true],
    ['Gt, greater', { key: 'rack', operator: 'Gt', values: ['11'] }, true],
    ['Gt, equal', { key: 'rack', operator: 'Gt', values: ['12'] }, false],
    ['Lt, smaller', { key: 'rack', operator: 'Lt', values: ['13'] }, true],
    ['Lt, equal', { key: 'rack', operator: 'Lt', values: ['12'] }, false],
    ['Gt, signed operand', { key: 'rack', operator: 'Gt', values: ['+11'] }, true],
    ['Gt, non-integer label', { key: 'word', operator: 'Gt', values: ['1'] }, false],
    ['Lt, key absent', { key: 'missing', operator: 'Lt', values: ['1'] }, false],
    ['Gt beyond 2^53 compares exactly', { key: 'rack', operator: 'Lt', values: ['9223372036854775807'] }, true],
    ['In without values', { key: 'zone', operator: 'In', values: [] }, 'InvalidSriovResourcePolicy'],
    ['NotIn without values', { key: 'zone', operator: 'NotIn' }, 'InvalidSriovResourcePolicy'],
    ['Exists with values', { key: 'zone', operator: 'Exists', values: ['a'] }, 'InvalidSriovResourcePolicy'],
    ['Gt with two values', { key: 'rack', operator: 'Gt', values: ['1', '2'] }, 'InvalidSriovResourcePolicy'],
    ['Lt with a non-integer', { key: 'rack', operator: 'Lt', values: ['1.5'] }, 'InvalidSriovResourcePolicy'],
    ['Gt beyond int64', { key: 'rack', operator: 'Gt', values: ['9223372036854775808'] }, 'InvalidSriovResourcePolicy'],
  ])('%s', (_case, requirement, expected) => {
    expect(value(matchesRequirement(requirement, labels))).toBe(expected);
  });

  it('does not read inherited properties as labels', () => {
    expect(value(matchesRequirement({ key: 'constructor', operator: 'Exists' }, labels))).toBe(false);
  });
});

describe('matchesNodeSelector', () => {
  const term = (...matchExpressions: SelectorRequirement[]) => ({
    matchExpressions: matchExpressions.map((r) => ({ ...r, values: r.values && [...r.values] })),
  });
  it.each<[string, NodeSelector | null | undefined, boolean | string]>([
    ['absent selects every node', undefined, true],
    ['null selects every node', null, true],
    ['no terms select no node', { nodeSelectorTerms: [] }, false],
    ['an empty term selects no node', { nodeSelectorTerms: [{}] }, false],
    ['a term with an empty expression list selects no node', { nodeSelectorTerms: [{ matchExpressions: [] }] }, false],
    [
      'expressions of a term are ANDed (all hold)',
      { nodeSelectorTerms: [term({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'rack', operator: 'Gt', values: ['10'] })] },
      true,
    ],
    [
      'expressions of a term are ANDed (one fails)',
      { nodeSelectorTerms: [term({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'rack', operator: 'Gt', values: ['20'] })] },
      false,
    ],
    [
      'terms are ORed',
      { nodeSelectorTerms: [term({ key: 'zone', operator: 'In', values: ['b'] }), term({ key: 'example.com/gpu', operator: 'Exists' })] },
      true,
    ],
    ['no term holds', { nodeSelectorTerms: [term({ key: 'zone', operator: 'In', values: ['b'] }), term({ key: 'gpu', operator: 'Exists' })] }, false],
    [
      'a malformed requirement fails even behind a matching term',
      { nodeSelectorTerms: [term({ key: 'zone', operator: 'Exists' }), term({ key: 'zone', operator: 'In', values: [] })] },
      'InvalidSriovResourcePolicy',
    ],
  ])('%s', (_case, selector, expected) => {
    expect(value(matchesNodeSelector(selector, labels))).toBe(expected);
  });
});

describe('matchesLabelSelector', () => {
  it.each<[string, Parameters<typeof matchesLabelSelector>[0], boolean | string]>([
    ['an empty selector selects everything', {}, true],
    ['matchLabels, all equal', { matchLabels: { zone: 'a', rack: '12' } }, true],
    ['matchLabels, one differs', { matchLabels: { zone: 'a', rack: '13' } }, false],
    ['matchLabels and matchExpressions are ANDed', { matchLabels: { zone: 'a' }, matchExpressions: [{ key: 'rack', operator: 'DoesNotExist' }] }, false],
    ['matchExpressions only', { matchExpressions: [{ key: 'rack', operator: 'In', values: ['12'] }] }, true],
    ['malformed expression', { matchExpressions: [{ key: 'rack', operator: 'In' }] }, 'InvalidSriovResourcePolicy'],
  ])('%s', (_case, selector, expected) => {
    expect(value(matchesLabelSelector(selector, labels))).toBe(expected);
  });
});

describe('selector requirements: int64 bounds and what a malformed one says', () => {
  it.each<[string, SelectorRequirement, boolean | string]>([
    ['the smallest int64 is an operand', { key: 'rack', operator: 'Gt', values: ['-9223372036854775808'] }, true],
    ['below int64', { key: 'rack', operator: 'Gt', values: ['-9223372036854775809'] }, 'InvalidSriovResourcePolicy'],
  ])('%s', (_case, requirement, expected) => {
    expect(value(matchesRequirement(requirement, labels))).toBe(expected);
  });

  it('reads a label of the smallest int64', () => {
    expect(value(matchesRequirement({ key: 'min', operator: 'Lt', values: ['0'] }, { min: '-9223372036854775808' }))).toBe(true);
  });

  it.each<[SelectorRequirement, string]>([
    [{ key: 'zone', operator: 'NotIn' }, 'requirement NotIn on zone has no values'],
    [{ key: 'zone', operator: 'DoesNotExist', values: ['a'] }, 'requirement DoesNotExist on zone must not have values'],
    [{ key: 'rack', operator: 'Lt', values: ['x'] }, 'requirement Lt on rack needs exactly one integer value'],
  ])('says what is wrong with %p', (requirement, detail) => {
    const result = matchesRequirement(requirement, labels);
    expect(result.ok ? result : result.error.detail).toBe(detail);
  });

  it('ANDs every expression of a label selector, not only the first', () => {
    const selector = {
      matchExpressions: [
        { key: 'zone', operator: 'In' as const, values: ['a'] },
        { key: 'rack', operator: 'In' as const, values: ['13'] },
      ],
    };
    expect(value(matchesLabelSelector(selector, labels))).toBe(false);
  });
});
