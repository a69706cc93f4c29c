import { describe, expect, it } from '@jest/globals';
import { MAX_DEPTH, parseStrictJson, serializeJson } from './strict-json.ts';

function roundTrip(text: string): string {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return serializeJson(parsed.value);
}

function errorKind(text: string): string {
  const parsed = parseStrictJson(text);
  return parsed.ok ? 'ok' : parsed.error.kind;
}

describe('strict JSON', () => {
  it.each([
    ['{"a":12345678901234567890123}', '{"a":12345678901234567890123}'],
    ['{"a":1.0,"b":1e3,"c":-0,"d":0.1}', '{"a":1.0,"b":1e3,"c":-0,"d":0.1}'],
    ['{"b":1,"a":2,"2":3,"1":4}', '{"b":1,"a":2,"2":3,"1":4}'],
    ['{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}'],
    [' { "s" : "tab\\t\\u00e9\\"q\\\\" } ', '{"s":"tab\\té\\"q\\\\"}'],
    ['[true,false,null,[],{}]', '[true,false,null,[],{}]'],
    ['"\\ud800"', '"\\ud800"'],
  ])('keeps %s losslessly', (text, expected) => {
    expect(roundTrip(text)).toBe(expected);
  });

  it.each([
    ['{"a":1,"a":1}', 'duplicate-key'],
    ['{"a":{"b":1,"b":2}}', 'duplicate-key'],
    ['{"a":1,}', 'syntax'],
    ['[1,]', 'syntax'],
    ['01', 'syntax'],
    ['+1', 'syntax'],
    ['.5', 'syntax'],
    ['NaN', 'syntax'],
    ["{'a':1}", 'syntax'],
    ['"unterminated', 'syntax'],
    ['"raw\ncontrol"', 'syntax'],
    ['"\\x"', 'syntax'],
    ['"\\u12g4"', 'syntax'],
    ['{} {}', 'syntax'],
    ['', 'syntax'],
    ['tru', 'syntax'],
    [`${'['.repeat(MAX_DEPTH + 2)}${']'.repeat(MAX_DEPTH + 2)}`, 'too-deep'],
  ])('rejects %j as %s', (text, kind) => {
    expect(errorKind(text)).toBe(kind);
  });
});
