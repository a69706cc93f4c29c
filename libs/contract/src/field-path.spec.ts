import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { fieldIssues, memberPath } from './field-path.ts';

describe('memberPath', () => {
  it('dots an identifier and quotes any other name in brackets', () => {
    expect(memberPath('spec', 'numVfs')).toBe('spec.numVfs');
    expect(memberPath('', 'spec')).toBe('spec');
    expect(memberPath('spec', 'a.b')).toBe('spec["a.b"]');
    expect(memberPath('spec', '1st')).toBe('spec["1st"]');
    expect(memberPath('spec', 'x'.repeat(100))).toBe(`spec.${'x'.repeat(100)}`);
    expect(memberPath('spec', 'x'.repeat(101))).toBe(`spec["${'x'.repeat(100)}\u2026"]`);
  });
});

describe('fieldIssues', () => {
  const issues = (schema: z.ZodType, value: unknown) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? [] : fieldIssues(parsed.error, 'spec');
  };

  it('gives every issue its full path, an array index in brackets', () => {
    const schema = z.object({ entries: z.array(z.object({ uid: z.string() })), count: z.int() });
    expect(issues(schema, { entries: [{ uid: 'a' }, { uid: 7 }], count: 'x' })).toEqual([
      { field: 'spec.entries[1].uid', detail: 'Invalid input: expected string, received number', unknown: false },
      { field: 'spec.count', detail: 'Invalid input: expected number, received string', unknown: false },
    ]);
  });

  it('makes each unrecognized key an unknown field of its own', () => {
    expect(issues(z.strictObject({ a: z.int().optional() }), { b: 1, 'c/d': 2 })).toEqual([
      { field: 'spec.b', detail: 'unknown field spec.b', unknown: true },
      { field: 'spec["c/d"]', detail: 'unknown field spec["c/d"]', unknown: true },
    ]);
  });

  it('cuts a long message', () => {
    const [issue] = issues(
      z.string().refine(() => false, 'm'.repeat(1_000)),
      'x',
    );
    expect(issue?.detail).toBe(`${'m'.repeat(320)}\u2026 (1000 characters)`);
  });
});
