import { describe, expect, it } from '@jest/globals';
import { objectRefOf } from './object-meta.ts';

describe('objectRefOf', () => {
  it.each([
    [{ metadata: { name: 'rail-a', namespace: 'infra' } }, { kind: 'K', namespace: 'infra', name: 'rail-a' }],
    [{ metadata: { name: 'Not_A_Name' } }, { kind: 'K', namespace: undefined, name: 'Not_A_Name' }],
    [{ metadata: { name: 'a'.repeat(253) } }, { kind: 'K', namespace: undefined, name: 'a'.repeat(253) }],
    [{ metadata: { name: 'a'.repeat(254), namespace: 7 } }, { kind: 'K', namespace: undefined, name: undefined }],
    [{ metadata: null }, { kind: 'K' }],
    [{ metadata: 'x' }, { kind: 'K' }],
    [{}, { kind: 'K' }],
    [null, { kind: 'K' }],
    ['x', { kind: 'K' }],
  ])('%p names %p', (value, expected) => {
    expect(objectRefOf('K', value)).toEqual(expected);
  });
});
