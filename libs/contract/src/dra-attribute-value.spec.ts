import { describe, expect, it } from '@jest/globals';
import { deviceAttributeValueSchema, draIntSchema, draScalarValueSchema, draStringSchema, draVersionSchema } from './dra-attribute-value.ts';

const accepts = (schema: { safeParse: (value: unknown) => { success: boolean } }, value: unknown) => schema.safeParse(value).success;

describe('DRA attribute values', () => {
  it.each([
    [Number.MAX_SAFE_INTEGER, true],
    [Number.MAX_SAFE_INTEGER + 1, false],
    [-Number.MAX_SAFE_INTEGER, true],
    [-Number.MAX_SAFE_INTEGER - 1, false],
    [0, true],
    [1.5, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    ['1', false],
  ])('int %p accepted: %p', (value, expected) => {
    expect(accepts(draIntSchema, value)).toBe(expected);
  });

  it.each([
    ['', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['\u00e9'.repeat(32), true],
    [`${'a'.repeat(63)}\u00e9`, false],
    ['\u20ac'.repeat(21), true],
    [`${'\u20ac'.repeat(21)}a`, true],
    [`${'\u20ac'.repeat(21)}\u00e9`, false],
    ['\u{1f600}'.repeat(16), true],
    [`${'\u{1f600}'.repeat(16)}a`, false],
    [1, false],
  ])('string %j accepted: %p', (value, expected) => {
    expect(accepts(draStringSchema, value)).toBe(expected);
  });

  it.each([
    ['1.2.3', true],
    [`1.0.0-${'a'.repeat(58)}`, true],
    [`1.0.0-${'a'.repeat(59)}`, false],
    ['1.2', false],
    ['', false],
    [1, false],
  ])('version %j accepted: %p', (value, expected) => {
    expect(accepts(draVersionSchema, value)).toBe(expected);
  });

  it.each([
    [{ int: 0 }, true],
    [{ bool: false }, true],
    [{ string: '' }, true],
    [{ version: '0.0.0' }, true],
    [{}, false],
    [{ int: 1, bool: true }, false],
    [{ string: 'a', version: '1.0.0' }, false],
    [{ ints: [1] }, false],
    [{ float: 1.5 }, false],
    [{ int: null }, false],
    [null, false],
    [[], false],
  ])('operator scalar %j accepted: %p', (value, expected) => {
    expect(accepts(draScalarValueSchema, value)).toBe(expected);
  });

  it.each([
    [{ ints: [] }, true],
    [{ ints: [1, 2] }, true],
    [{ bools: [false] }, true],
    [{ strings: ['a'.repeat(64)] }, true],
    [{ strings: ['a'.repeat(65)] }, false],
    [{ versions: ['1.0.0', '1.0'] }, false],
    [{ ints: [1.5] }, false],
    [{ ints: [1], int: 1 }, false],
    [{ int: 1 }, true],
  ])('device attribute value %j accepted: %p', (value, expected) => {
    expect(accepts(deviceAttributeValueSchema, value)).toBe(expected);
  });

  // A value built in TypeScript may spell an unset member as an explicit undefined (e.g. from a spread).
  it.each([
    [draScalarValueSchema, { int: 1, bool: undefined, string: undefined }, true],
    [draScalarValueSchema, { int: undefined }, false],
    [deviceAttributeValueSchema, { ints: [1], strings: undefined }, true],
  ])('counts an undefined member as unset: %#', (schema, value, expected) => {
    expect(accepts(schema, value)).toBe(expected);
  });
});
