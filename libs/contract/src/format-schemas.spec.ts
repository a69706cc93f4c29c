import { describe, expect, it } from '@jest/globals';
import { labelsSchema } from './format-schemas.ts';

describe('labelsSchema', () => {
  const issues = (value: unknown) => {
    const parsed = labelsSchema.safeParse(value);
    return parsed.success ? 'accepted' : parsed.error.issues.map(({ code, path, message }) => ({ code, path, message }));
  };

  it('accepts label keys with label values', () => {
    expect(labelsSchema.parse({ 'example.com/rail': 'a', tier: '' })).toEqual({ 'example.com/rail': 'a', tier: '' });
  });

  it('reports every bad key and bad value at its key', () => {
    expect(issues({ 'Example.com/rail': 'a', ok: 'fine', tier: 'x'.repeat(64), count: 3 })).toEqual([
      { code: 'custom', path: ['Example.com/rail'], message: 'must be a label key: [DNS subdomain/]name of at most 63 characters' },
      { code: 'custom', path: ['tier'], message: 'must be a label value of at most 63 characters' },
      { code: 'custom', path: ['count'], message: 'must be a label value of at most 63 characters' },
    ]);
  });

  it('refuses a value that is not a map', () => {
    expect(issues(['a'])).toEqual([{ code: 'custom', path: [], message: 'must be a map of labels' }]);
  });
});
