import { describe, expect, it } from '@jest/globals';
import { toPlainData } from './json-plain-data.ts';
import { type JsonValue, parseStrictJson } from './strict-json.ts';

function plain(text: string): unknown {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const converted = toPlainData(parsed.value);
  return converted.ok ? converted.value : converted.detail;
}

describe('toPlainData', () => {
  it('keeps "__proto__" as an own key and leaves the prototype alone', () => {
    const value = plain('{"a":1,"__proto__":{"polluted":true},"b":[{"__proto__":2}]}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['a', '__proto__', 'b']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')).toEqual({ value: { polluted: true }, enumerable: true, writable: true, configurable: true });
    const inner = (value['b'] as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')?.value).toBe(2);
  });

  it('keeps key order, including integer-like keys', () => {
    expect(JSON.stringify(plain('{"b":1,"2":2,"a":3}'))).toBe('{"2":2,"b":1,"a":3}');
  });

  it.each([
    ['0', 0],
    ['-7', -7],
    ['0.5', 0.5],
    ['9007199254740991', 9007199254740991],
    ['1e+21', 1e21],
  ])('reads %s exactly', (text, expected) => {
    expect(plain(`[${text}]`)).toEqual([expected]);
  });

  it.each([
    ['1.0', 'number 1.0 at [0] cannot be read exactly'],
    ['-0', 'number -0 at [0] cannot be read exactly'],
    ['1e3', 'number 1e3 at [0] cannot be read exactly'],
    ['9007199254740993', 'number 9007199254740993 at [0] cannot be read exactly'],
    ['0.10', 'number 0.10 at [0] cannot be read exactly'],
  ])('refuses %s, which would change spelling or value', (text, detail) => {
    expect(plain(`[${text}]`)).toBe(detail);
  });

  it('names the path of a refused number', () => {
    expect(plain('{"a":[{"b":1.50}]}')).toBe('number 1.50 at a[0].b cannot be read exactly');
    expect(plain('2.0')).toBe('number 2.0 at the root cannot be read exactly');
  });

  it('names the index of a refused number after earlier elements', () => {
    expect(plain('[1,[2],2.0]')).toBe('number 2.0 at [2] cannot be read exactly');
    expect(plain('{"a":[1,2],"b":{"c":3},"d":4.0}')).toBe('number 4.0 at d cannot be read exactly');
  });

  it('lets any failure other than an inexact number propagate (deeper nesting than the parser allows)', () => {
    let deep: JsonValue = [];
    for (let depth = 0; depth < 1_000_000; depth += 1) deep = [deep];
    expect(() => toPlainData(deep)).toThrow(RangeError);
  });

  it('passes strings, booleans and null through', () => {
    expect(plain('["x",true,false,null]')).toEqual(['x', true, false, null]);
  });
});
