import { describe, expect, it } from '@jest/globals';
import { isObjectRecord, objectRecordSchema } from './object-record.ts';

describe('isObjectRecord', () => {
  it.each([[{}], [{ a: 1 }], [Object.create(null)]])('accepts the object %p', (value) => {
    expect(isObjectRecord(value)).toBe(true);
  });

  it.each([[null], [undefined], [[]], [['a']], ['{}'], [''], [42], [true], [() => ({})]])('refuses %p', (value) => {
    expect(isObjectRecord(value)).toBe(false);
  });
});

describe('objectRecordSchema', () => {
  it('reports its message for anything but an object', () => {
    const schema = objectRecordSchema('must be a map of labels');
    expect(schema.parse({ tier: 'gold' })).toEqual({ tier: 'gold' });
    const parsed = schema.safeParse('rail=a');
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)).toEqual(['must be a map of labels']);
  });
});
