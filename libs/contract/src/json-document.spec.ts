import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { type VersionedDocument, parseJsonObject, validateVersioned } from './json-document.ts';
import { parseBindingAnnotation } from './binding.ts';
import { parseRegistry } from './registry.ts';

// The binding of fixture binding-annotation/rail-a, spelled out so each case edits one spot of the text.
const binding = [
  '"version":1',
  '"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc"',
  '"podUID":"11111111-2222-3333-4444-555555555555"',
  '"claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607"',
  '"nodeName":"worker-a"',
  '"nodeUID":"6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40"',
  '"source":{"namespace":"ai-workloads","name":"rail-a-net","uid":"9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a","resourceVersion":"48213"}',
  '"pciAddress":"0000:03:00.1"',
  '"interface":"dra0"',
  '"configSHA256":"e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d"',
];
const bindingText = (fields: readonly string[]) => `{${fields.join(',')}}`;
const nad = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' };

function code(result: { ok: true } | { ok: false; error: { code: string } }): string {
  return result.ok ? 'valid' : result.error.code;
}

describe('contract annotations are parsed strictly', () => {
  it('accepts the plain document', () => {
    expect(code(parseBindingAnnotation(bindingText(binding)))).toBe('valid');
  });

  it('rejects a repeated key, even with an identical value', () => {
    expect(code(parseBindingAnnotation(bindingText([...binding, binding[2] as string])))).toBe('InvalidBindingAnnotation');
  });

  it('rejects a repeated key whose last value alone would be valid', () => {
    const first = '"podUID":"99999999-2222-3333-4444-555555555555"';
    expect(code(parseBindingAnnotation(bindingText([first, ...binding])))).toBe('InvalidBindingAnnotation');
  });

  it('rejects a repeated key inside a nested object', () => {
    const source =
      '"source":{"namespace":"ai-workloads","name":"rail-a-net","name":"rail-a-net","uid":"9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a","resourceVersion":"1"}';
    expect(code(parseBindingAnnotation(bindingText(binding.map((field) => (field.startsWith('"source"') ? source : field)))))).toBe('InvalidBindingAnnotation');
  });

  it('names the object and the repeated key', () => {
    const result = parseBindingAnnotation(bindingText([...binding, binding[2] as string]), nad);
    expect(result.ok ? 'valid' : result.error.message).toMatch(
      /^InvalidBindingAnnotation: NetworkAttachmentDefinition ai-workloads\/dra-sriov-[0-9a-f]{32}: .*"podUID"/,
    );
  });

  it.each(['1.0', '1e0', '10e-1', '1.00000000000000000001'])('rejects version %s, which is not the integer 1 as written', (version) => {
    expect(code(parseBindingAnnotation(bindingText(binding.map((field) => (field === '"version":1' ? `"version":${version}` : field)))))).toBe(
      'InvalidBindingAnnotation',
    );
  });

  it('keeps a "__proto__" key as an unknown field', () => {
    expect(code(parseBindingAnnotation(bindingText([...binding, '"__proto__":{"version":1}'])))).toBe('InvalidBindingAnnotation');
    expect(code(parseRegistry('{"version":1,"podUID":"11111111-2222-3333-4444-555555555555","entries":[],"__proto__":{}}'))).toBe(
      'InvalidManagedNetworksRegistry',
    );
  });

  it('rejects a registry entry that repeats a key', () => {
    const entry =
      '{"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","namespace":"ai-workloads","name":"dra-sriov-71179501bb6cd083245331b0ff5857fa","uid":"4f3e2d1c-0b9a-4877-9665-5443322110ff","interface":"dra0","interface":"dra0","configSHA256":"e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d"}';
    expect(code(parseRegistry(`{"version":1,"podUID":"11111111-2222-3333-4444-555555555555","entries":[${entry}]}`))).toBe('InvalidManagedNetworksRegistry');
  });

  it.each([null, undefined, 42, {}, ['{}']])('returns a typed error for the non-string annotation value %p', (raw) => {
    expect(code(parseRegistry(raw as string))).toBe('InvalidManagedNetworksRegistry');
    expect(code(parseBindingAnnotation(raw as string))).toBe('InvalidBindingAnnotation');
  });

  it('bounds the source resourceVersion: 64 bytes are kept, 65 rejected', () => {
    const withVersion = (resourceVersion: string) =>
      bindingText(binding.map((field) => (field.startsWith('"source"') ? field.replace('"48213"', JSON.stringify(resourceVersion)) : field)));
    expect(code(parseBindingAnnotation(withVersion('9'.repeat(64))))).toBe('valid');
    expect(code(parseBindingAnnotation(withVersion('9'.repeat(65))))).toBe('InvalidBindingAnnotation');
  });

  it.each([
    ['null', 'must be a JSON object, got null'],
    ['[]', 'must be a JSON object, got an array'],
    ['"x"', 'must be a JSON object, got a string'],
    ['true', 'must be a JSON object, got a boolean'],
    ['1', 'must be a JSON object, got a number'],
    ['{"version":1', 'is not valid JSON'],
    ['{"a":1,"a":1}', 'repeats a key'],
    [`${'['.repeat(200)}${']'.repeat(200)}`, 'is nested too deeply'],
    [`{"a":${'['.repeat(200)}${']'.repeat(200)}}`, 'is nested too deeply'],
  ])('reports %s as "%s"', (raw, detail) => {
    const result = parseRegistry(raw);
    expect(result.ok ? 'valid' : result.error.detail).toContain(detail);
  });

  it('names where an inexact number is', () => {
    const result = parseRegistry('{"version":1,"podUID":"11111111-2222-3333-4444-555555555555","entries":[{"uid":2.50}]}');
    expect(result.ok ? 'valid' : result.error.detail).toBe('number 2.50 at entries[0].uid cannot be read exactly');
    const root = parseBindingAnnotation('{"version":1E0}');
    expect(root.ok ? 'valid' : root.error.detail).toBe('number 1E0 at version cannot be read exactly');
  });

  it.each(['0', '-1', '0.5', '1e-7', '123456789012345680000'])('reads the number %s, which prints back as written', (number) => {
    const result = parseBindingAnnotation(`{"version":${number}}`);
    expect(result.ok ? 'valid' : result.error.detail).not.toContain('cannot be read exactly');
  });
});

describe('versioned documents', () => {
  const kind: VersionedDocument<{ version: 2; name: string }> = {
    version: 2,
    schema: z.strictObject({ version: z.literal(2), name: z.string() }),
    invalid: 'InvalidBindingAnnotation',
    unsupported: 'UnsupportedBindingVersion',
  };
  const pod = { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer-0' };
  const outcome = (result: ReturnType<typeof validateVersioned>) =>
    result.ok ? { value: result.value } : { code: result.error.code, detail: result.error.detail, object: result.error.object };

  it.each([
    [null, 'InvalidBindingAnnotation', 'must be a JSON object'],
    [[{ version: 2 }], 'InvalidBindingAnnotation', 'must be a JSON object'],
    [{ name: 'a' }, 'InvalidBindingAnnotation', 'has no version field'],
    [{ version: '2' }, 'InvalidBindingAnnotation', 'version "2" is not a positive integer'],
    [{ version: 1.5 }, 'InvalidBindingAnnotation', 'version 1.5 is not a positive integer'],
    [{ version: 0 }, 'InvalidBindingAnnotation', 'version 0 is not a positive integer'],
    [{ version: 1 }, 'UnsupportedBindingVersion', 'version 1 is not supported (this build reads version 2)'],
    [{ version: 3 }, 'UnsupportedBindingVersion', 'version 3 is not supported (this build reads version 2)'],
    [{ version: 2, name: 7 }, 'InvalidBindingAnnotation', 'name: Invalid input: expected string, received number'],
  ])('rejects %j as %s: %s, naming the object', (document, code, detail) => {
    expect(outcome(validateVersioned(document, kind, pod))).toEqual({ code, detail, object: pod });
  });

  it('returns the parsed document at the supported version', () => {
    expect(outcome(validateVersioned({ version: 2, name: 'a' }, kind, pod))).toEqual({ value: { version: 2, name: 'a' } });
  });
});

describe('parseJsonObject', () => {
  const pod = { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer-0' };
  const outcome = (result: ReturnType<typeof parseJsonObject>) =>
    result.ok ? { value: result.value } : { code: result.error.code, detail: result.error.detail, object: result.error.object };

  it.each([
    [42, 'must be a JSON string, got 42'],
    [null, 'must be a JSON string, got null'],
    ['{"a":1.0}', 'number 1.0 at a cannot be read exactly'],
  ])("rejects %p under the caller's code and object: %s", (raw, detail) => {
    expect(outcome(parseJsonObject(raw as string, 'InvalidManagedNetworksRegistry', pod))).toEqual({
      code: 'InvalidManagedNetworksRegistry',
      detail,
      object: pod,
    });
  });
});
