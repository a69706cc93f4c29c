import { describe, expect, it } from '@jest/globals';
import { JsonNumber, parseStrictJson, type JsonObject } from '@sriov-dra/contract';
import { findFloat64Overflow, findFoldedDuplicate, goFoldEqual, goFoldKey, isGoInt64 } from './go-json.ts';

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
    ['\udfff', '\ufffd'],
    ['\ud83d\ude00', '\ud83d\ude00'], // a valid pair is one code point without case
    ['\u0080', '\u0080'],
    ['\u00e9', '\u00c9'],
    ['\u1f87', '\u1f8f'],
    ['\u1f90', '\u1f98'],
    ['\u1f97', '\u1f9f'],
    ['\u1fa0', '\u1fa8'],
    ['\u1fa7', '\u1faf'],
    ['\u1f8f', '\u1f8f'], // titlecase forms fold to themselves
    ['\u1fb3', '\u1fbc'],
    ['\u1fc3', '\u1fcc'],
    ['\u1ff3', '\u1ffc'],
    ['\u0149', '\u0149'], // no simple uppercase
    ['\u{10428}', '\u{10400}'], // Deseret: both cases outside the BMP
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

  it('compares keys of 31 characters or more, which the length bitmask cannot hold, and objects of many keys', () => {
    const long = 'x'.repeat(40);
    expect(findFoldedDuplicate(object(`{"${long}":1,"${long.toUpperCase()}":2}`))).toEqual({ first: long, second: long.toUpperCase() });
    expect(findFoldedDuplicate(object(`{"${long}":1,"${'y'.repeat(40)}":2}`))).toBeUndefined();
    const many = Array.from({ length: 12 }, (_unused, i) => `"k${i}":${i}`).join(',');
    expect(findFoldedDuplicate(object(`{${many},"K7":0}`))).toEqual({ first: 'k7', second: 'K7' });
    expect(findFoldedDuplicate(object(`{${many}}`))).toBeUndefined();
  });

  // Each pair in both orders: the comparison has a separate ASCII path for each side.
  it.each([
    ['k', '\u212a', true],
    ['z', 'Z', true],
    ['a', 'A', true],
    ['deviceID', 'DEVICEid', true],
    ['!', '\u0001', false], // 0x21 and 0x01 differ by the case bit but are not letters
    ['{', '[', false], // 0x7b and 0x5b: just past z and Z
    ['`', '@', false], // 0x60 and 0x40: just before a and A
    ['a', 'b', false],
    ['ab', 'a', false],
    ['\u00e9', '\u00c9', true],
    ['\u00e9x', '\u00c9y', false],
    ['\u0080', '\u0080', true],
  ])('goFoldEqual(%j, %j) and the reverse are %s', (a, b, equal) => {
    expect(goFoldEqual(a, b)).toBe(equal);
    expect(goFoldEqual(b, a)).toBe(equal);
    expect(goFoldKey(a) === goFoldKey(b)).toBe(equal);
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
    ['1E400', '1E400'],
    ['9'.repeat(308), undefined], // 308 digits stay below float64's maximum
    ['9'.repeat(309), '9'.repeat(309)], // 309 digits reach +Inf without an exponent
  ])('float64 %s overflows: %s', (raw, overflow) => {
    const found = findFloat64Overflow(object(`{"a":[{"b":${raw}}]}`));
    expect(found?.raw).toBe(overflow);
    if (overflow !== undefined) expect(found?.path).toBe('a[0].b');
  });

  it('names the root, array indexes and object keys, and looks past values that are fine', () => {
    expect(findFloat64Overflow(new JsonNumber('1e400'))).toEqual({ path: '(root)', raw: '1e400' });
    expect(findFloat64Overflow(new JsonNumber('1'))).toBeUndefined();
    expect(findFloat64Overflow(object('{"a":1,"b":"x","c":null,"d":true,"e":[2,{"f":3}],"g":-1e999}'))).toEqual({ path: 'g', raw: '-1e999' });
    const parsed = parseStrictJson('[1,"s",[],{},2e308]');
    if (!parsed.ok) throw new Error('fixture does not parse');
    expect(findFloat64Overflow(parsed.value)).toEqual({ path: '[4]', raw: '2e308' });
    expect(findFloat64Overflow(object('{"a":"1e400","b":[1,2]}'))).toBeUndefined();
  });

  it.each([
    ['-9223372036854775809', false],
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
