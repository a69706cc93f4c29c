import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseBindingAnnotation, validateBindingAnnotation } from './binding.ts';
import { validateDeviceAttributes } from './device-attributes.ts';
import { type Result, isErrorCode } from './errors.ts';
import { type FixtureKind, expectsValid, loadFixtures } from './fixtures.ts';
import { buildBindingIdentity, validateIdentityTuple } from './identity.ts';
import { validateNodePolicyDra } from './node-policy-dra.ts';
import { parseRegistry, validateRegistry } from './registry.ts';
import { validateSriovResourcePolicy } from './resource-policy.ts';
import { validateGeneratedSelection } from './selection.ts';
import { validateVfConfig } from './vf-config.ts';

/** Every entry point that takes data from outside the process, with the codes its rejections may carry. */
const entryPoints: readonly (readonly [string, (value: unknown) => Result<unknown>, readonly string[]])[] = [
  ['parseBindingAnnotation', (value) => parseBindingAnnotation(value as string), ['InvalidBindingAnnotation', 'UnsupportedBindingVersion']],
  ['validateBindingAnnotation', (value) => validateBindingAnnotation(value), ['InvalidBindingAnnotation', 'UnsupportedBindingVersion']],
  ['parseRegistry', (value) => parseRegistry(value as string), ['InvalidManagedNetworksRegistry', 'UnsupportedRegistryVersion']],
  [
    'validateRegistry',
    (value) => validateRegistry(value),
    ['InvalidManagedNetworksRegistry', 'UnsupportedRegistryVersion', 'DuplicateAttachmentID', 'DuplicateSelectionIdentity'],
  ],
  ['validateGeneratedSelection', (value) => validateGeneratedSelection(value), ['InvalidGeneratedSelection']],
  ['validateVfConfig', (value) => validateVfConfig(value), ['InvalidVfConfig']],
  [
    'validateDeviceAttributes',
    (value) => validateDeviceAttributes(value),
    ['InvalidDeviceAttributes', 'ReservedDRAAttribute', 'InvalidNetAttachDefReference', 'AttributeBudgetExceeded'],
  ],
  ['validateSriovResourcePolicy', (value) => validateSriovResourcePolicy(value), ['InvalidSriovResourcePolicy', 'UnsupportedManagedSelector']],
  [
    'validateNodePolicyDra',
    (value) => validateNodePolicyDra(value),
    ['InvalidDRAAttribute', 'ReservedDRAAttribute', 'IncompleteSriovNetworkReference', 'InvalidSriovNetworkReference'],
  ],
  ['buildBindingIdentity', (value) => buildBindingIdentity(value), ['InvalidIdentityTuple', 'UnsupportedIdentityProtocol']],
  ['validateIdentityTuple', (value) => validateIdentityTuple(value), ['InvalidIdentityTuple', 'UnsupportedIdentityProtocol']],
];

const garbage = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

describe('untrusted input', () => {
  it.each(entryPoints)('%s returns ok or one of its own typed codes for any value, never throws', (_name, entry, codes) => {
    fc.assert(
      fc.property(garbage, (value) => {
        const result = entry(value);
        if (result.ok) return;
        expect(isErrorCode(result.error.code)).toBe(true);
        expect(codes).toContain(result.error.code);
        expect(result.error.message.length).toBeLessThan(2_000);
        // Even without a caller-supplied reference, the error says what kind of object it is about.
        expect(result.error.object?.kind ?? '').not.toBe('');
      }),
      { numRuns: 3_000 },
    );
  });

  // Valid documents with one inner value replaced by garbage reach the deeper checks.
  const byKind: Partial<Record<FixtureKind, string>> = {
    'binding-annotation': 'validateBindingAnnotation',
    'managed-networks-registry': 'validateRegistry',
    'generated-selection': 'validateGeneratedSelection',
    'vf-config': 'validateVfConfig',
    'device-attributes': 'validateDeviceAttributes',
    'sriov-resource-policy': 'validateSriovResourcePolicy',
    'node-policy-dra': 'validateNodePolicyDra',
    identity: 'buildBindingIdentity',
  };
  const documents = loadFixtures()
    .filter((fixture) => expectsValid(fixture) && fixture.input !== undefined && byKind[fixture.kind] !== undefined)
    .map((fixture) => [byKind[fixture.kind] as string, fixture.input] as const);

  function paths(value: unknown, prefix: readonly (string | number)[] = []): (readonly (string | number)[])[] {
    if (typeof value !== 'object' || value === null) return [prefix];
    const children = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
    return [prefix, ...children.flatMap(([key, item]) => paths(item, [...prefix, key]))];
  }

  function replaced(value: unknown, path: readonly (string | number)[], by: unknown): unknown {
    const [head, ...rest] = path;
    if (head === undefined) return by;
    if (Array.isArray(value)) return (value as unknown[]).map((item, index) => (index === head ? replaced(item, rest, by) : item));
    const copy: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) copy[key] = key === head ? replaced(item, rest, by) : item;
    return copy;
  }

  it('valid documents with any one value replaced by garbage get a typed answer', () => {
    expect(documents.length).toBeGreaterThan(20);
    const document = fc
      .constantFrom(...documents)
      .chain(([name, input]) => fc.tuple(fc.constant(name), fc.constant(input), fc.constantFrom(...paths(input)), garbage));
    fc.assert(
      fc.property(document, ([name, input, path, by]) => {
        const [, entry, codes] = entryPoints.find(([candidate]) => candidate === name) ?? [];
        if (entry === undefined || codes === undefined) throw new Error(`no entry point ${name}`);
        const result = entry(replaced(input, path, by));
        if (!result.ok) expect(codes).toContain(result.error.code);
      }),
      { numRuns: 5_000 },
    );
  });
});
