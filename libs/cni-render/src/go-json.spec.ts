import { describe, expect, it } from '@jest/globals';
import { JsonNumber, parseStrictJson, type JsonObject } from '@sriov-dra/contract';
import { findFloat64Overflow, findFoldedDuplicate, goFoldKey, isGoInt64 } from './go-json.ts';

function object(text: string): JsonObject {
  const parsed = parseStrictJson(text);
  if (!parsed.ok || !(parsed.value instanceof Map)) throw new Error(`not an object: ${text}`);
  return parsed.value;
}

describe("Go's key folding", () => {
  // Expected forms are Go's foldName outputs: ASCII uppercased, others through ToUpper(ToLower(r)).
  it.each([
    ['deviceID', 'DEVICEID'],
    ['pci_bus-ID.1', 'PCI_BUS-ID.1'],
    ['\u212a', 'K'], // KELVIN SIGN lowers to k
    ['\u017f', 'S'], // LATIN SMALL LETTER LONG S uppers to S
    ['\u0130', 'I'], // its simple lowercase is i
    ['\u00df', '\u00df'], // sharp s has no simple uppercase
    ['\u1e9e', '\u00df'], // capital sharp s lowers to sharp s
    ['\u03c2', '\u03a3'], // final sigma
    ['\u1f80', '\u1f88'], // iota subscript uppers to its titlecase form
    ['\ud800x', '\ufffdX'], // a lone surrogate is decoded to U+FFFD by Go
  ])('folds %j to %j', (key, folded) => {
    expect(goFoldKey(key)).toBe(folded);
  });

  it.each([
    ['{"deviceID":"","DeviceID":"0000:99:00.1"}', ['deviceID', 'DeviceID']],
    ['{"type":"sriov","Type":"macvlan"}', ['type', 'Type']],
    ['{"pluginſ":[],"plugins":[]}', ['pluginſ', 'plugins']],
    ['{"\u212aey":1,"key":2}', ['\u212aey', 'key']],
    ['{"a\\ud800":1,"a\\udbff":2}', ['a\ud800', 'a\udbff']],
  ])('finds the folded pair in %s', (text, [first, second]) => {
    expect(findFoldedDuplicate(object(text))).toEqual({ first, second });
  });

  it.each(['{"type":"sriov","types":1}', '{"ss":1,"ß":2}', '{}', '{"a":1}'])('finds no pair in %s', (text) => {
    expect(findFoldedDuplicate(object(text))).toBeUndefined();
  });
});

describe('numbers as Go decodes them', () => {
  it.each([
    ['1e308', undefined],
    ['1.7976931348623157e308', undefined], // the largest float64
    ['1e-400', undefined], // underflows to 0 without an error in strconv
    ['1e400', '1e400'],
    ['-1e309', '-1e309'],
    ['1.7976931348623159e308', '1.7976931348623159e308'], // rounds to +Inf
  ])('float64 %s overflows: %s', (raw, overflow) => {
    const found = findFloat64Overflow(object(`{"a":[{"b":${raw}}]}`));
    expect(found?.raw).toBe(overflow);
    if (overflow !== undefined) expect(found?.path).toBe('a[0].b');
  });

  it.each([
    ['0', true],
    ['-9223372036854775808', true],
    ['9223372036854775807', true],
    ['9223372036854775808', false],
    ['1.0', false],
    ['1e2', false],
    ['-0', true],
  ])('int64 %s decodes: %s', (raw, decodes) => {
    expect(isGoInt64(new JsonNumber(raw))).toBe(decodes);
  });
});
