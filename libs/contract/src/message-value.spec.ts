import { describe, expect, it } from '@jest/globals';
import { MESSAGE_TEXT_MAX_CHARS, MESSAGE_VALUE_MAX_CHARS, messageExcerpt, messageValue } from './message-value.ts';

describe('messageValue', () => {
  it.each([
    ['rail-a', '"rail-a"'],
    ['a'.repeat(80), `"${'a'.repeat(80)}"`],
    ['a'.repeat(81), `"${'a'.repeat(80)}"\u2026 (81 characters)`],
    ['say "hi"\n', '"say \\"hi\\"\\n"'],
    [0, '0'],
    [-1.5, '-1.5'],
    [false, 'false'],
    [null, 'null'],
    [undefined, 'undefined'],
    [10n, '10n'],
    [[1, 2], 'an array'],
    [{ a: 1 }, 'a value of type object'],
    [Object.create(null) as unknown, 'a value of type object'],
    [() => 1, 'a value of type function'],
    [Symbol('s'), 'a value of type symbol'],
  ])('%p reads %s', (value, expected) => {
    expect(messageValue(value)).toBe(expected);
  });

  it('never calls into the value', () => {
    const hostile = {
      toString: () => {
        throw new Error('called');
      },
      toJSON: () => {
        throw new Error('called');
      },
    };
    expect(messageValue(hostile)).toBe('a value of type object');
  });
});

describe('messageExcerpt', () => {
  it.each([
    ['', 3, ''],
    ['abc', 3, 'abc'],
    ['abcd', 3, 'abc\u2026 (4 characters)'],
  ])('%j cut at %d reads %j', (text, max, expected) => {
    expect(messageExcerpt(text, max)).toBe(expected);
  });

  it('bounds free text at four value excerpts', () => {
    expect([MESSAGE_VALUE_MAX_CHARS, MESSAGE_TEXT_MAX_CHARS]).toEqual([80, 320]);
  });
});
