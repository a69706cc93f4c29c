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

function outcome(text: string): string {
  const parsed = parseStrictJson(text);
  return parsed.ok ? `ok ${serializeJson(parsed.value)}` : `${parsed.error.kind} at ${parsed.error.position}: ${parsed.error.message}`;
}

describe('strict JSON errors', () => {
  it.each([
    ['', 'syntax at 0: unexpected end of input at offset 0'],
    ['[', 'syntax at 1: unexpected end of input at offset 1'],
    ['{"a":', 'syntax at 5: unexpected end of input at offset 5'],
    ['[x]', 'syntax at 1: unexpected character "x" at offset 1'],
    ['{} {}', 'syntax at 3: unexpected content after the JSON value at offset 3'],
    ['012', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1x5', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1x+5', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1.', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1.e5', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1e', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1E+', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['1e-x', 'syntax at 1: unexpected content after the JSON value at offset 1'],
    ['tru', 'syntax at 0: invalid literal at offset 0'],
    ['[nul]', 'syntax at 1: invalid literal at offset 1'],
    ['"abc', 'syntax at 4: unterminated string at offset 4'],
    ['"a\\n', 'syntax at 4: unterminated string at offset 4'],
    ['"raw\ncontrol"', 'syntax at 4: control character in string at offset 4'],
    ['"\\n\u001f"', 'syntax at 3: control character in string at offset 3'],
    ['"\\', 'syntax at 1: invalid escape at offset 1'],
    ['"a\\x"', 'syntax at 2: invalid escape at offset 2'],
    ['"\\u12g4"', 'syntax at 1: invalid \\u escape at offset 1'],
    ['"\\u12"', 'syntax at 1: invalid \\u escape at offset 1'],
    ['"\\u12', 'syntax at 1: invalid \\u escape at offset 1'],
    ['[1 2]', 'syntax at 3: expected "," or "]" in array at offset 3'],
    ['[1', 'syntax at 2: expected "," or "]" in array at offset 2'],
    ['{1:2}', 'syntax at 1: expected a string key at offset 1'],
    ['{"a" 1}', 'syntax at 5: expected ":" after key at offset 5'],
    ['{"a"', 'syntax at 4: expected ":" after key at offset 4'],
    ['{"a":1 "b":2}', 'syntax at 7: expected "," or "}" in object at offset 7'],
    ['{"a":1', 'syntax at 6: expected "," or "}" in object at offset 6'],
    ['{"a":1,"a":2}', 'duplicate-key at 7: duplicate key "a" at offset 7'],
    [`${'['.repeat(MAX_DEPTH + 2)}${']'.repeat(MAX_DEPTH + 2)}`, `too-deep at ${MAX_DEPTH + 1}: nesting deeper than ${MAX_DEPTH} at offset ${MAX_DEPTH + 1}`],
  ])('reports %j as %s', (text, expected) => {
    expect(outcome(text)).toBe(expected);
  });

  it('accepts nesting exactly MAX_DEPTH deep', () => {
    const text = `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`;
    expect(outcome(text)).toBe(`ok ${text}`);
  });

  it('lets an error thrown by sameKey through', () => {
    const sameKey = (): boolean => {
      throw new Error('relation failed');
    };
    expect(() => parseStrictJson('{"a":1,"b":2}', { sameKey })).toThrow('relation failed');
  });
});

describe('strict JSON whitespace and strings', () => {
  it.each([
    ['[ ]', 'ok []'],
    ['{ }', 'ok {}'],
    ['{}', 'ok {}'],
    ['\n[\n1\n,\n2\n]\n', 'ok [1,2]'],
    ['\r{\r"a"\r:\r1\r,\r"b"\r:\r2\r}\r', 'ok {"a":1,"b":2}'],
    ['\t{\t"a"\t:\t[\t1\t]\t}\t', 'ok {"a":[1]}'],
    ['"a b\\n"', 'ok "a b\\n"'],
    ['"\\/\\b\\f\\r\\u00E9x"', 'ok "/\\b\\f\\réx"'],
    ['-0.5e-3', 'ok -0.5e-3'],
  ])('reads %j as %s', (text, expected) => {
    expect(outcome(text)).toBe(expected);
  });
});

describe('strict JSON element texts', () => {
  function elementTexts(text: string): readonly string[] | string {
    const parsed = parseStrictJson(text);
    return parsed.ok ? parsed.elementTexts : parsed.error.message;
  }

  it.each([
    ['[ 1.0 , {"a":[2, 3]},"x" ,[[]]]', ['1.0', '{"a":[2, 3]}', '"x"', '[[]]']],
    ['[]', []],
    ['{"a":[1,2]}', []],
    ['"text"', []],
  ])('gives the top-level elements of %j', (text, expected) => {
    expect(elementTexts(text)).toEqual(expected);
  });
});

describe('strict JSON options', () => {
  const caseless = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  function withOptions(text: string, options: Parameters<typeof parseStrictJson>[1]): string {
    const parsed = parseStrictJson(text, options);
    return parsed.ok ? 'ok' : `${parsed.error.kind} at ${parsed.error.position}: ${parsed.error.message}`;
  }

  it.each([
    ['{"type":1,"Type":2}', 'duplicate-key at 10: keys "type" and "Type" are the same key when folded at offset 10'],
    ['{"a":{"bb":1,"x":2,"BB":3}}', 'duplicate-key at 19: keys "bb" and "BB" are the same key when folded at offset 19'],
    ['{"ab":1,"ab":2}', 'duplicate-key at 8: duplicate key "ab" at offset 8'],
    ['{"k":1,"kk":2,"KK":3}', 'duplicate-key at 14: keys "kk" and "KK" are the same key when folded at offset 14'],
    [
      `{"${'a'.repeat(40)}":1,"${'A'.repeat(40)}":2}`,
      `duplicate-key at 46: keys "${'a'.repeat(40)}" and "${'A'.repeat(40)}" are the same key when folded at offset 46`,
    ],
    ['{"type":1,"types":2,"TYPE0":3}', 'ok'],
  ])('sameKey makes %s', (text, outcome) => {
    expect(withOptions(text, { sameKey: caseless })).toBe(outcome);
  });

  it('compares only keys of equal length', () => {
    const compared: string[] = [];
    const spy = (a: string, b: string): boolean => {
      compared.push(`${a}|${b}`);
      return false;
    };
    expect(withOptions('{"a":1,"bb":2,"c":3,"dd":4,"eee":5}', { sameKey: spy })).toBe('ok');
    expect(compared).toEqual(['a|c', 'bb|dd']);
  });

  it.each([
    ['[1e308,-1.7976931348623157e308,1e-400,12345678901234567890]', 'ok'],
    ['{"a":[1e309]}', 'number-range at 6: the number 1e309 does not fit a float64 at offset 6'],
    ['-1E+400', 'number-range at 0: the number -1E+400 does not fit a float64 at offset 0'],
    ['9'.repeat(309), `number-range at 0: the number ${'9'.repeat(309)} does not fit a float64 at offset 0`],
    ['9'.repeat(308), 'ok'],
  ])('finiteNumbers makes %s', (text, outcome) => {
    expect(withOptions(text, { finiteNumbers: true })).toBe(outcome);
  });

  it('accepts any number and folded keys without the options', () => {
    expect(withOptions('{"a":1e999,"A":2}', {})).toBe('ok');
  });
});
