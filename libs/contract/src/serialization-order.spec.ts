import { describe, expect, it } from '@jest/globals';
import { parseBindingAnnotation, serializeBindingAnnotation } from './binding.ts';
import { parseRegistry, serializeRegistry } from './registry.ts';
import { generatedSelectionJSON } from './selection.ts';

// The exact texts the driver writes, field order as in spec §6.4, spelled out by hand.
const BINDING =
  '{"version":1,"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","podUID":"11111111-2222-3333-4444-555555555555","claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","nodeName":"worker-a","nodeUID":"6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40","source":{"namespace":"ai-workloads","name":"rail-a-net","uid":"9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a","resourceVersion":"48213"},"pciAddress":"0000:03:00.1","interface":"dra0","configSHA256":"e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d"}';
const REGISTRY =
  '{"version":1,"podUID":"11111111-2222-3333-4444-555555555555","entries":[{"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","namespace":"ai-workloads","name":"dra-sriov-71179501bb6cd083245331b0ff5857fa","uid":"4f3e2d1c-0b9a-4877-9665-5443322110ff","interface":"dra0","configSHA256":"e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d"}]}';

describe('serialized field order', () => {
  it('binding annotation: §6.4 order, compact', () => {
    const binding = parseBindingAnnotation(BINDING);
    expect(binding.ok ? serializeBindingAnnotation(binding.value) : binding.error.message).toBe(BINDING);
  });

  it('registry: §6.4 order, compact', () => {
    const registry = parseRegistry(REGISTRY);
    expect(registry.ok ? serializeRegistry(registry.value) : registry.error.message).toBe(REGISTRY);
  });

  it('generated selection: name, namespace, interface', () => {
    const selection = generatedSelectionJSON({ interface: 'dra0', namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' });
    expect(JSON.stringify(selection)).toBe('{"name":"dra-sriov-71179501bb6cd083245331b0ff5857fa","namespace":"ai-workloads","interface":"dra0"}');
  });
});

describe('document versions', () => {
  it.each([
    ['0', 'InvalidBindingAnnotation'],
    ['-1', 'InvalidBindingAnnotation'],
    ['2', 'UnsupportedBindingVersion'],
    ['1.5', 'InvalidBindingAnnotation'],
    ['"1"', 'InvalidBindingAnnotation'],
    ['null', 'InvalidBindingAnnotation'],
  ])('version %s is %s', (version, code) => {
    const result = parseBindingAnnotation(BINDING.replace('"version":1', `"version":${version}`));
    expect(result.ok ? 'valid' : result.error.code).toBe(code);
  });
});
