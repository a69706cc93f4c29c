import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { identityTupleArbitrary } from '../test/arbitraries.ts';
import { type BindingAnnotationV1, parseBindingAnnotation, serializeBindingAnnotation } from './binding.ts';
import { buildBindingIdentity } from './identity.ts';
import { type RegistryV1, parseRegistry, serializeRegistry } from './registry.ts';

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
        const binding = parseBindingAnnotation(raw);
        const registry = parseRegistry(raw);
        expect(binding.ok).toBe(false);
        expect(registry.ok).toBe(false);
      }),
      { numRuns: 10_000 },
    );
  });
});
