// The OpenAPI-to-JSON-Schema rules on the Kubernetes extensions the shipped CRDs do not all use.
import { describe, expect, it } from '@jest/globals';
import { type OpenApiNode, editorSchemas } from './crd-json-schema.ts';

const crd = (spec: OpenApiNode, kind = 'Example') => ({
  metadata: { name: `examples.example.com` },
  spec: {
    group: 'example.com',
    names: { kind },
    versions: [{ name: 'v1beta1', schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
  },
});

const specOf = (spec: OpenApiNode, kind?: string) => (editorSchemas(crd(spec, kind))[0]?.schema['properties'] as Record<string, unknown>)['spec'];

describe('editorSchemas', () => {
  it('names the file after group, lowercase kind and version, and constrains apiVersion and kind', () => {
    const [only, ...rest] = editorSchemas(crd({ type: 'object' }, 'ExampleKind'));
    expect(rest).toEqual([]);
    expect(only?.path).toBe('schemas/example.com/examplekind_v1beta1.json');
    expect(only?.schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      required: ['apiVersion', 'kind'],
      additionalProperties: false,
      properties: {
        apiVersion: { type: 'string', enum: ['example.com/v1beta1'] },
        kind: { type: 'string', enum: ['ExampleKind'] },
        metadata: { type: 'object' },
      },
    });
  });

  it('turns x-kubernetes-int-or-string into integer or string, and nullable into a null type', () => {
    expect(
      specOf({
        type: 'object',
        properties: {
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          note: { type: 'string', nullable: true },
        },
      }),
    ).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { port: { type: ['integer', 'string'], anyOf: [{ type: 'integer' }, { type: 'string' }] }, note: { type: ['string', 'null'] } },
    });
  });

  it('leaves an object that keeps unknown fields open, and closes every other object', () => {
    expect(
      specOf({
        type: 'object',
        properties: {
          kept: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
          pruned: { type: 'object', properties: { a: { type: 'string' } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: {} } },
        },
      }),
    ).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        kept: { type: 'object', properties: { a: { type: 'string' } } },
        pruned: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
        map: { type: 'object', additionalProperties: { type: 'object', additionalProperties: false, properties: {} } },
      },
    });
  });

  it("keeps descriptions, limits and JSON Schema formats, drops Kubernetes' own formats and CEL rules", () => {
    expect(
      specOf({
        description: 'd',
        type: 'integer',
        format: 'int64',
        minimum: 1,
        exclusiveMinimum: true,
        maximum: 9,
        default: 5,
        'x-kubernetes-validations': [{ rule: 'self > 2' }],
      }),
    ).toEqual({ description: 'd', type: 'integer', exclusiveMinimum: 1, maximum: 9, default: 5 });
    expect(specOf({ type: 'string', format: 'date-time', pattern: '^x', enum: ['x'] })).toEqual({
      type: 'string',
      format: 'date-time',
      pattern: '^x',
      enum: ['x'],
    });
  });

  it('refuses a CRD version without a schema, naming it', () => {
    expect(() =>
      editorSchemas({ metadata: { name: 'examples.example.com' }, spec: { group: 'example.com', names: { kind: 'Example' }, versions: [{ name: 'v1' }] } }),
    ).toThrow('CustomResourceDefinition examples.example.com version v1 has no openAPIV3Schema');
  });
});
