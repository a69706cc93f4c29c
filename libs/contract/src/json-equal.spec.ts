import { describe, expect, it } from '@jest/globals';
import { jsonEqualIgnoringKeyOrder } from './json-equal.ts';

describe('jsonEqualIgnoringKeyOrder', () => {
  it('ignores key order at every depth', () => {
    expect(jsonEqualIgnoringKeyOrder({ a: 1, b: { c: [{ d: 1, e: 2 }] } }, { b: { c: [{ e: 2, d: 1 }] }, a: 1 })).toBe(true);
  });

  it.each([
    ['a different value', { a: 1 }, { a: 2 }],
    ['a missing key', { a: 1, b: 2 }, { a: 1 }],
    ['array order', [1, 2], [2, 1]],
    ['null against absent', { a: null }, {}],
    ['a string against a number', { a: '1' }, { a: 1 }],
  ])('tells apart %s', (_case, a, b) => {
    expect(jsonEqualIgnoringKeyOrder(a, b)).toBe(false);
  });
});
