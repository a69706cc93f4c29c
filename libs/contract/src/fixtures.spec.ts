import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
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

describe('loadFixtures on a fixtures tree', () => {
  let root: string;
  const write = (file: string, content: unknown): void => {
    writeFileSync(join(root, 'identity', file), typeof content === 'string' ? content : JSON.stringify(content));
  };
  const valid = (description: string) => ({ description, kind: 'identity', input: {}, expect: { valid: true } });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'contract-fixtures-'));
    mkdirSync(join(root, 'identity'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads only .json files, sorted by name, each with an id of kind and base name', () => {
    write('c-last.json', valid('third'));
    write('a-first.json', valid('first'));
    write('README.md', '# not a fixture');
    write('b.json', { description: 'second', kind: 'identity', inputRaw: '{', expect: { error: 'InvalidIdentityTuple' } });
    expect(loadFixtures('identity', root)).toEqual([
      { id: 'identity/a-first', description: 'first', kind: 'identity', input: {}, inputRaw: undefined, expect: { valid: true } },
      { id: 'identity/b', description: 'second', kind: 'identity', inputRaw: '{', expect: { error: 'InvalidIdentityTuple' } },
      { id: 'identity/c-last', description: 'third', kind: 'identity', input: {}, inputRaw: undefined, expect: { valid: true } },
    ]);
  });

  it('orders by JavaScript string order, whatever order the file system lists names in', () => {
    // UTF-8 bytes put U+FF5A before U+1F600; UTF-16 code units put the emoji's surrogate pair first.
    for (const name of ['\uff5a', '\u{1f600}', 'a']) write(`${name}.json`, valid(name));
    expect(loadFixtures('identity', root).map((fixture) => fixture.id)).toEqual(['identity/a', 'identity/\u{1f600}', 'identity/\uff5a']);
  });

  it.each([
    ['both input and inputRaw', { ...valid('both'), inputRaw: '{}' }, 'exactly one of input and inputRaw'],
    ['neither input nor inputRaw', { description: 'neither', kind: 'identity', expect: { valid: true } }, 'exactly one of input and inputRaw'],
    ['an unknown error code', { ...valid('unknown code'), expect: { error: 'NoSuchCode' } }, 'must be a known error code'],
  ])('refuses a fixture with %s', (_case, content, problem) => {
    write('bad.json', content);
    expect(() => loadFixtures('identity', root)).toThrow(/^fixture identity\/bad is malformed: /);
    expect(() => loadFixtures('identity', root)).toThrow(problem);
  });

  it('refuses a fixture filed under another kind', () => {
    write('misfiled.json', { ...valid('misfiled'), kind: 'vf-config' });
    expect(() => loadFixtures('identity', root)).toThrow(new Error('fixture identity/misfiled declares kind vf-config but lives in identity/'));
  });
});

describe('expectedError', () => {
  const fixture = (expectation: Fixture['expect']): Fixture => ({
    id: 'identity/x',
    description: 'x',
    kind: 'identity',
    input: {},
    inputRaw: undefined,
    expect: expectation,
  });

  it('is the stated code of a rejection, and none for an accepted fixture, whatever else it states', () => {
    expect(expectedError(fixture({ error: 'InvalidIdentityTuple' }))).toBe('InvalidIdentityTuple');
    expect(expectedError(fixture({ valid: true, error: 'InvalidIdentityTuple' }))).toBeUndefined();
  });
});
