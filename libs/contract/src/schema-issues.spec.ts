import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { describeFirstIssue } from './schema-issues.ts';
import { parseBindingAnnotation } from './binding.ts';
import { validateGeneratedSelection } from './selection.ts';

describe('schema issue messages', () => {
  it('quote a bounded excerpt of an unknown key, however long', () => {
    const key = 'k'.repeat(100_000);
    const result = validateGeneratedSelection({ name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa', namespace: 'ai-workloads', interface: 'dra0', [key]: 1 });
    expect(result.ok ? 'accepted' : result.error.code).toBe('InvalidGeneratedSelection');
    expect(result.ok ? 0 : result.error.message.length).toBeLessThan(1_000);
    expect(result.ok ? '' : result.error.detail).toContain('kkkk');
  });

  it('bound an unknown key deep in a document', () => {
    const binding =
      '{"version":1,"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","podUID":"11111111-2222-3333-4444-555555555555","claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","nodeName":"worker-a","nodeUID":"6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40","source":{"namespace":"ai-workloads","name":"rail-a-net","uid":"9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a","resourceVersion":"48213","%s":1},"pciAddress":"0000:03:00.1","interface":"dra0","configSHA256":"e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d"}';
    const raw = binding.replace('%s', 'x'.repeat(50_000));
    const result = parseBindingAnnotation(raw);
    expect(result.ok ? 'accepted' : result.error.code).toBe('InvalidBindingAnnotation');
    expect(result.ok ? 0 : result.error.message.length).toBeLessThan(1_000);
  });

  it('keep short issues whole', () => {
    const result = validateGeneratedSelection({ name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa', namespace: 'ai-workloads' });
    expect(result.ok ? 'accepted' : result.error.detail).toBe('interface: Invalid input: expected string, received undefined');
  });
});

describe('parse error messages', () => {
  it('bound a repeated key, however long', () => {
    const key = 'd'.repeat(100_000);
    const result = parseBindingAnnotation(`{"${key}":1,"${key}":1}`);
    expect(result.ok ? 'accepted' : result.error.code).toBe('InvalidBindingAnnotation');
    expect(result.ok ? 0 : result.error.message.length).toBeLessThan(1_000);
  });
});

describe('describeFirstIssue', () => {
  const firstIssue = (schema: z.ZodType, value: unknown): string => {
    const parsed = schema.safeParse(value);
    return parsed.success ? 'accepted' : describeFirstIssue(parsed.error);
  };

  it('writes object keys with dots and array indexes in brackets', () => {
    const schema = z.object({ entries: z.array(z.object({ uid: z.string() })) });
    expect(firstIssue(schema, { entries: [{ uid: 'a' }, { uid: 7 }] })).toBe('entries[1].uid: Invalid input: expected string, received number');
  });

  it('starts a path at an index without a dot', () => {
    expect(firstIssue(z.array(z.object({ uid: z.string() })), [{ uid: 7 }])).toBe('[0].uid: Invalid input: expected string, received number');
  });

  it('gives the bare message for a problem with the value itself', () => {
    expect(firstIssue(z.string(), 7)).toBe('Invalid input: expected string, received number');
  });

  it('says "invalid value" for an error without issues', () => {
    expect(describeFirstIssue(new z.ZodError([]))).toBe('invalid value');
  });
});
