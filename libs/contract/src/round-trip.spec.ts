import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { identityTupleArbitrary } from '../test/arbitraries.ts';
import { type BindingAnnotationV1, parseBindingAnnotation, serializeBindingAnnotation } from './binding.ts';
import { buildBindingIdentity } from './identity.ts';
import { type RegistryV1, parseRegistry, serializeRegistry } from './registry.ts';

const nad = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'shadow' };
const pod = { kind: 'Pod', namespace: 'ai-workloads', name: 'consumer' };
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const iface = fc.stringMatching(/^[a-z][a-z0-9]{0,14}$/);

const bindingArbitrary: fc.Arbitrary<BindingAnnotationV1> = fc
  .record({ tuple: identityTupleArbitrary, sourceUID: fc.uuid(), rv: fc.stringMatching(/^[1-9][0-9]{0,9}$/), iface, hash: hex64 })
  .map(({ tuple, sourceUID, rv, iface: name, hash }) => {
    const identity = buildBindingIdentity(tuple);
    if (!identity.ok) throw identity.error;
    return {
      version: 1,
      attachmentID: identity.value.attachmentID,
      podUID: tuple.podUID,
      claimUID: tuple.claimUID,
      nodeName: 'worker-a',
      nodeUID: tuple.nodeUID,
      source: { namespace: 'ai-workloads', name: 'rail-a-net', uid: sourceUID, resourceVersion: rv },
      pciAddress: '0000:03:00.1',
      interface: name,
      configSHA256: hash,
    } as const;
  });

const registryArbitrary: fc.Arbitrary<RegistryV1> = fc
  .record({
    podUID: fc.uuid(),
    entries: fc.uniqueArray(fc.record({ tuple: identityTupleArbitrary, uid: fc.uuid(), hash: hex64 }), {
      maxLength: 8,
      selector: (entry) => entry.tuple.claimUID,
    }),
  })
  .map(({ podUID, entries }) => ({
    version: 1 as const,
    podUID,
    entries: entries.map(({ tuple, uid, hash }, index) => {
      const identity = buildBindingIdentity(tuple);
      if (!identity.ok) throw identity.error;
      return {
        attachmentID: identity.value.attachmentID,
        claimUID: tuple.claimUID,
        namespace: 'ai-workloads',
        name: identity.value.shadowName,
        uid,
        interface: `dra${index}`,
        configSHA256: hash,
      };
    }),
  }));

describe('serialization', () => {
  it('binding annotation: parse(serialize(b)) = b and serialize is canonical', () => {
    fc.assert(
      fc.property(bindingArbitrary, (binding) => {
        const text = serializeBindingAnnotation(binding);
        expect(parseBindingAnnotation(text)).toEqual({ ok: true, value: binding });
        const shuffled = JSON.stringify(Object.fromEntries(Object.entries(binding).reverse()));
        const reparsed = parseBindingAnnotation(shuffled);
        expect(reparsed.ok && serializeBindingAnnotation(reparsed.value)).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('registry: parse(serialize(r)) = r, keeping entry order', () => {
    fc.assert(
      fc.property(registryArbitrary, (registry) => {
        expect(parseRegistry(serializeRegistry(registry))).toEqual({ ok: true, value: registry });
      }),
      { numRuns: 2_000 },
    );
  });

  it('arbitrary strings never throw and never validate by accident', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const binding = parseBindingAnnotation(raw, nad);
        const registry = parseRegistry(raw, pod);
        expect(binding.ok ? 'valid' : binding.error.code).toMatch(/^(InvalidBindingAnnotation|UnsupportedBindingVersion)$/);
        expect(registry.ok ? 'valid' : registry.error.code).toMatch(/^(InvalidManagedNetworksRegistry|UnsupportedRegistryVersion)$/);
        expect(binding.ok ? '' : binding.error.message).toContain(': NetworkAttachmentDefinition ai-workloads/shadow');
        expect(registry.ok ? '' : registry.error.message).toContain(': Pod ai-workloads/consumer');
      }),
      { numRuns: 10_000 },
    );
  });

  it('a binding that repeats any one of its keys is rejected, whatever the values', () => {
    const fields = ['version', 'attachmentID', 'podUID', 'claimUID', 'nodeName', 'nodeUID', 'source', 'pciAddress', 'interface', 'configSHA256'];
    fc.assert(
      fc.property(bindingArbitrary, fc.constantFrom(...fields), (binding, field) => {
        const text = serializeBindingAnnotation(binding);
        const repeated = `${text.slice(0, -1)},${JSON.stringify(field)}:${JSON.stringify((binding as unknown as Record<string, unknown>)[field])}}`;
        const parsed = parseBindingAnnotation(repeated);
        expect(parsed.ok ? 'valid' : [parsed.error.code, parsed.error.detail.includes(JSON.stringify(field))]).toEqual(['InvalidBindingAnnotation', true]);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a registry whose text spells a number differently from the driver is rejected', () => {
    fc.assert(
      fc.property(registryArbitrary, fc.constantFrom('1.0', '1e0', '1E0', '1.0e0', '10e-1', '0.1e1', '1.00'), (registry, spelling) => {
        const text = serializeRegistry(registry).replace('"version":1', `"version":${spelling}`);
        const parsed = parseRegistry(text);
        expect(parsed.ok ? 'valid' : parsed.error.code).toBe('InvalidManagedNetworksRegistry');
      }),
      { numRuns: 500 },
    );
  });
});
