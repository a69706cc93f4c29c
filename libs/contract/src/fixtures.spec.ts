import { describe, expect, it } from '@jest/globals';
import { type BindingAnnotationV1, parseBindingAnnotation } from './binding.ts';
import { type DeviceAttributes, validateDeviceAttributes } from './device-attributes.ts';
import type { Result } from './errors.ts';
import { FIXTURE_KINDS, type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures, rawInput } from './fixtures.ts';
import { type BindingIdentity, type BindingIdentityTuple, buildBindingIdentity, canonicalIdentityBytes, shadowNameFor } from './identity.ts';
import { type ValidatedNodePolicyDra, validateNodePolicyDra } from './node-policy-dra.ts';
import { type RegistryV1, parseRegistry } from './registry.ts';
import { validateSriovResourcePolicy } from './resource-policy.ts';
import { validateGeneratedSelection } from './selection.ts';
import { validateVfConfig } from './vf-config.ts';

/**
 * The contract's own reading of each fixture kind; the apps check the same files their own way. Render
 * fixtures need the renderer, which lives in libs/cni-render (the contract depends on nothing).
 */
const validators: Record<Exclude<FixtureKind, 'render'>, (fixture: Fixture) => Result<unknown>> = {
  'binding-annotation': (fixture) => parseBindingAnnotation(rawInput(fixture)),
  'managed-networks-registry': (fixture) => parseRegistry(rawInput(fixture)),
  'generated-selection': (fixture) => validateGeneratedSelection(fixture.input),
  identity: (fixture) => buildBindingIdentity(fixture.input),
  'vf-config': (fixture) => validateVfConfig(fixture.input),
  'device-attributes': (fixture) => validateDeviceAttributes(fixture.input),
  'sriov-resource-policy': (fixture) => validateSriovResourcePolicy(fixture.input),
  'node-policy-dra': (fixture) => validateNodePolicyDra(fixture.input),
};

function withoutValid(expectation: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(expectation).filter(([key]) => key !== 'valid'));
}

/** The stated values of each kind, taken from what the contract read (keys the fixture names only). */
function readBack(kind: FixtureKind, value: unknown, expectation: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  const stated = (key: string, get: () => unknown): void => {
    if (key in expectation) read[key] = get();
  };
  switch (kind) {
    case 'binding-annotation':
      stated('shadowName', () => shadowNameFor((value as BindingAnnotationV1).attachmentID));
      break;
    case 'managed-networks-registry': {
      const registry = value as RegistryV1;
      stated('podUID', () => registry.podUID);
      stated('shadows', () =>
        registry.entries.map(({ name, namespace, uid, interface: iface, configSHA256 }) => ({ name, namespace, uid, interface: iface, configSHA256 })),
      );
      break;
    }
    case 'device-attributes': {
      const object = value as DeviceAttributes;
      stated('attributes', () => object.attributes);
      stated('nadReference', () => object.nadReference);
      break;
    }
    case 'node-policy-dra': {
      const dra = value as ValidatedNodePolicyDra;
      stated('customAttributes', () => dra.customAttributes);
      stated('sriovNetwork', () => dra.sriovNetwork);
      break;
    }
    case 'identity': {
      const identity = value as BindingIdentity;
      stated('attachmentID', () => identity.attachmentID);
      stated('shadowName', () => identity.shadowName);
      // The canonical bytes have their own test below.
      stated('canonical', () => expectation['canonical']);
      break;
    }
    case 'generated-selection':
    case 'vf-config':
    case 'sriov-resource-policy':
    case 'render':
      // These kinds state no values beyond validity.
      break;
  }
  // A stated key no case reads stays missing here, so the comparison fails instead of passing unchecked.
  return read;
}

const fixtures = loadFixtures().filter((fixture): fixture is Fixture & { kind: Exclude<FixtureKind, 'render'> } => fixture.kind !== 'render');

describe('contract fixtures', () => {
  it('cover every kind with accepted and rejected examples, 40 or more in all', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
    expect(loadFixtures('render').length).toBeGreaterThanOrEqual(30);
    for (const kind of FIXTURE_KINDS) {
      const ofKind = loadFixtures(kind);
      expect({ kind, valid: ofKind.some(expectsValid), invalid: ofKind.some((fixture) => !expectsValid(fixture)) }).toEqual({
        kind,
        valid: true,
        invalid: true,
      });
    }
  });

  it.each(fixtures.map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const result = validators[fixture.kind](fixture);
    if (expectsValid(fixture)) {
      expect(result.ok ? 'valid' : result.error.message).toBe('valid');
      // Every value a fixture states beyond validity is compared with what was read.
      if (result.ok) expect(readBack(fixture.kind, result.value, fixture.expect)).toEqual(withoutValid(fixture.expect));
    } else {
      expect(result.ok ? 'valid' : result.error.code).toBe(expectedError(fixture));
    }
  });

  it('identity fixtures carry the canonical bytes and digests the implementation reproduces', () => {
    for (const fixture of loadFixtures('identity').filter(expectsValid)) {
      const tuple = fixture.input as BindingIdentityTuple;
      expect(canonicalIdentityBytes(tuple).toString('utf8')).toBe(fixture.expect['canonical']);
      expect(buildBindingIdentity(tuple)).toEqual({
        ok: true,
        value: { attachmentID: fixture.expect['attachmentID'], shadowName: fixture.expect['shadowName'] },
      });
    }
  });

  it('rejections name what to do', () => {
    for (const fixture of fixtures.filter((candidate) => !expectsValid(candidate))) {
      const result = validators[fixture.kind](fixture);
      if (result.ok) throw new Error(`${fixture.id} was accepted`);
      expect(result.error.message).toContain(`${result.error.code}: `);
      expect(result.error.remedy.length).toBeGreaterThan(10);
    }
  });
});
