import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { identityTupleArbitrary } from '../test/arbitraries.ts';
import { expectsValid, loadFixtures } from './fixtures.ts';
import { type BindingIdentityTuple, buildBindingIdentity, canonicalIdentityBytes, shadowNameFor } from './identity.ts';

function attachmentID(tuple: BindingIdentityTuple): string {
  const identity = buildBindingIdentity(tuple);
  if (!identity.ok) throw identity.error;
  return identity.value.attachmentID;
}

const RUNS = 10_000;

/**
 * The canonical bytes as IDENTITY.md specifies them, written here from the document rather than taken
 * from identity.ts: `<field>:<u|s>:<UTF-8 byte length>:<value>\n` for each field in table order.
 */
function documentedCanonicalBytes(tuple: BindingIdentityTuple): string {
  const line = (field: string, type: 'u' | 's', value: string) => `${field}:${type}:${Buffer.byteLength(value, 'utf8')}:${value}\n`;
  return [
    line('protocolVersion', 'u', String(tuple.protocolVersion)),
    line('nodeUID', 's', tuple.nodeUID),
    line('podUID', 's', tuple.podUID),
    line('claimUID', 's', tuple.claimUID),
    line('driver', 's', tuple.driver),
    line('pool', 's', tuple.pool),
    line('device', 's', tuple.device),
  ].join('');
}

/** Lowercase hex SHA-256 of each text, computed by the sha256sum binary in one process. */
function sha256sumAll(texts: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'identity-'));
  try {
    const files = texts.map((text, index) => {
      const file = join(dir, String(index));
      writeFileSync(file, text, 'utf8');
      return file;
    });
    const output = execFileSync('sha256sum', files, { maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
    const byFile = new Map(
      output
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => [line.slice(66), line.slice(0, 64)] as const),
    );
    return files.map((file) => byFile.get(file) ?? `sha256sum printed nothing for ${file}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const fields = ['nodeUID', 'podUID', 'claimUID', 'driver', 'pool', 'device'] as const;

describe('buildBindingIdentity', () => {
  it('derives a 64-hex attachmentID and the 32-hex shadow name from it', () => {
    fc.assert(
      fc.property(identityTupleArbitrary, (tuple) => {
        const identity = buildBindingIdentity(tuple);
        expect(identity.ok).toBe(true);
        if (!identity.ok) return;
        expect(identity.value.attachmentID).toMatch(/^[0-9a-f]{64}$/);
        expect(identity.value.shadowName).toBe(`dra-sriov-${identity.value.attachmentID.slice(0, 32)}`);
        expect(shadowNameFor(identity.value.attachmentID)).toBe(identity.value.shadowName);
      }),
      { numRuns: 1_000 },
    );
  });

  it('changes whenever any field changes', () => {
    const change = fc.tuple(identityTupleArbitrary, identityTupleArbitrary, fc.constantFrom(...fields)).filter(([a, b, field]) => a[field] !== b[field]);
    fc.assert(
      fc.property(change, ([tuple, other, field]) => {
        expect(attachmentID({ ...tuple, [field]: other[field] })).not.toBe(attachmentID(tuple));
      }),
      { numRuns: RUNS },
    );
  });

  it('does not depend on the key order of the input object', () => {
    fc.assert(
      fc.property(identityTupleArbitrary, (tuple) => {
        const reversed = Object.fromEntries(Object.entries(tuple).reverse()) as unknown as BindingIdentityTuple;
        expect(attachmentID(reversed)).toBe(attachmentID(tuple));
      }),
      { numRuns: 1_000 },
    );
  });

  it('is not fooled by field values that look like the encoding', () => {
    // Without length prefixes these two tuples would serialize to the same text.
    const base = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 7 })[0] as BindingIdentityTuple;
    const a = { ...base, pool: 'p', device: 'd' };
    const b = { ...base, pool: 'p\ndevice:s:1:d', device: 'd' };
    expect(canonicalIdentityBytes(a).equals(canonicalIdentityBytes(b))).toBe(false);
  });

  it('gives, for 10^4 tuples, the digests sha256sum computes from bytes encoded by IDENTITY.md alone', () => {
    const tuples = fc.sample(identityTupleArbitrary, { numRuns: RUNS, seed: 20261130 });
    const digests = sha256sumAll(tuples.map(documentedCanonicalBytes));
    const computed = tuples.map((tuple) => buildBindingIdentity(tuple));
    let mismatches = 0;
    for (const [index, identity] of computed.entries()) {
      const digest = digests[index] ?? '';
      const expected = { ok: true, value: { attachmentID: digest, shadowName: `dra-sriov-${digest.slice(0, 32)}` } };
      if (JSON.stringify(identity) !== JSON.stringify(expected)) {
        mismatches += 1;
        if (mismatches === 1) expect({ tuple: tuples[index], identity }).toEqual({ tuple: tuples[index], identity: expected });
      }
    }
    expect(mismatches).toBe(0);
    expect(new Set(digests).size).toBe(RUNS);
  });

  it('encodes tuples exactly as IDENTITY.md describes', () => {
    fc.assert(
      fc.property(identityTupleArbitrary, (tuple) => {
        expect(canonicalIdentityBytes(tuple).toString('utf8')).toBe(documentedCanonicalBytes(tuple));
      }),
      { numRuns: 1_000 },
    );
  });

  it('rejects a tuple it cannot encode canonically', () => {
    const tuple = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 3 })[0] as BindingIdentityTuple;
    expect(buildBindingIdentity({ ...tuple, podUID: tuple.podUID.toUpperCase().replace(/[0-9]/g, 'A') })).toMatchObject({
      ok: false,
      error: { code: 'InvalidIdentityTuple' },
    });
    expect(buildBindingIdentity({ ...tuple, protocolVersion: 0 })).toMatchObject({ ok: false, error: { code: 'UnsupportedIdentityProtocol' } });
    expect(buildBindingIdentity({ ...tuple, pool: 'a//b' })).toMatchObject({ ok: false, error: { code: 'InvalidIdentityTuple' } });
  });

  it.each([null, undefined, 42, 'tuple', [], { protocolVersion: 1n }])('returns a typed error for the garbage tuple %p', (garbage) => {
    const identity = buildBindingIdentity(garbage);
    expect(identity.ok ? 'ok' : identity.error.code).toMatch(/^(InvalidIdentityTuple|UnsupportedIdentityProtocol)$/);
  });

  it.each([
    [null, 'must be an object of the seven identity fields, got null'],
    ['tuple', 'must be an object of the seven identity fields, got "tuple"'],
    [[], 'must be an object of the seven identity fields, got an array'],
  ])('says what a tuple must be when given %p', (garbage, detail) => {
    const identity = buildBindingIdentity(garbage);
    expect(identity.ok ? 'ok' : { code: identity.error.code, detail: identity.error.detail }).toEqual({ code: 'InvalidIdentityTuple', detail });
  });

  it.each([
    ['protocolVersion', 2, 'UnsupportedIdentityProtocol', 'protocolVersion 2 is not 1'],
    ['nodeUID', 'X', 'InvalidIdentityTuple', 'nodeUID "X" is not a lowercase UUID'],
    ['podUID', 5, 'InvalidIdentityTuple', 'podUID 5 is not a lowercase UUID'],
    ['claimUID', null, 'InvalidIdentityTuple', 'claimUID null is not a lowercase UUID'],
    ['driver', 'a'.repeat(64), 'InvalidIdentityTuple', `driver "${'a'.repeat(64)}" is not a DNS subdomain of at most 63 characters`],
    ['pool', '', 'InvalidIdentityTuple', 'pool "" is not a DRA pool name'],
    ['pool', `${'a'.repeat(127)}/${'b'.repeat(126)}`, 'InvalidIdentityTuple', 'is not a DRA pool name'],
    ['device', 'a.b', 'InvalidIdentityTuple', 'device "a.b" is not a DNS label'],
  ])('rejects %s %p with %s, saying which field', (field, value, code, detail) => {
    const tuple = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 5 })[0] as BindingIdentityTuple;
    const identity = buildBindingIdentity({ ...tuple, [field]: value });
    expect(identity.ok ? 'ok' : [identity.error.code, identity.error.detail.includes(detail), identity.error.object]).toEqual([
      code,
      true,
      { kind: 'BindingIdentityTuple' },
    ]);
  });

  it.each([
    ['a 63-character driver', { driver: 'a'.repeat(63) }],
    ['a 253-character pool of two subdomains', { pool: `${'a'.repeat(126)}/${'b'.repeat(126)}` }],
    ['a 63-character device', { device: 'd'.repeat(63) }],
  ])('accepts %s', (_case, change) => {
    const tuple = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 5 })[0] as BindingIdentityTuple;
    expect(buildBindingIdentity({ ...tuple, ...change }).ok).toBe(true);
  });

  it('hashes only the seven fields: extra input fields change nothing', () => {
    const tuple = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 5 })[0] as BindingIdentityTuple;
    expect(buildBindingIdentity({ ...tuple, requestName: 'nic-0', resourceVersion: '7' })).toEqual(buildBindingIdentity(tuple));
  });

  it('returns a typed error for a field of the wrong type', () => {
    const tuple = fc.sample(identityTupleArbitrary, { numRuns: 1, seed: 3 })[0] as BindingIdentityTuple;
    for (const value of [10n, null, 7, { toString: () => tuple.device }]) {
      const identity = buildBindingIdentity({ ...tuple, device: value });
      expect(identity.ok ? 'ok' : identity.error.code).toBe('InvalidIdentityTuple');
    }
  });
});

describe('identity fixtures', () => {
  const valid = loadFixtures('identity').filter(expectsValid);

  it('state canonical bytes that IDENTITY.md encoding gives for their tuple, and the digest sha256sum gives for those bytes', () => {
    expect(valid.length).toBeGreaterThanOrEqual(3);
    const digests = sha256sumAll(valid.map((fixture) => String(fixture.expect['canonical'])));
    for (const [index, fixture] of valid.entries()) {
      const digest = digests[index] ?? '';
      expect({
        id: fixture.id,
        canonical: documentedCanonicalBytes(fixture.input as BindingIdentityTuple),
        attachmentID: digest,
        shadowName: `dra-sriov-${digest.slice(0, 32)}`,
      }).toEqual({
        id: fixture.id,
        canonical: fixture.expect['canonical'],
        attachmentID: fixture.expect['attachmentID'],
        shadowName: fixture.expect['shadowName'],
      });
    }
  });
});

describe('IDENTITY.md worked example', () => {
  const doc = readFileSync(fileURLToPath(new URL('../IDENTITY.md', import.meta.url)), 'utf8');
  const block = (marker: string): string => {
    const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\n([\\s\\S]*?)\`\`\``).exec(doc);
    if (match?.[1] === undefined) throw new Error(`IDENTITY.md has no ${marker} block`);
    return match[1];
  };
  const tupleMatch = /```json\n([\s\S]*?)```/.exec(doc);
  const tuple = JSON.parse(tupleMatch?.[1] ?? 'null') as BindingIdentityTuple;
  const canonical = block('canonical-bytes');
  const result = block('identity-result');
  const documentedID = /attachmentID: ([0-9a-f]{64})/.exec(result)?.[1];
  const documentedName = /shadowName: +(\S+)/.exec(result)?.[1];

  it('documents the exact canonical bytes of its tuple', () => {
    expect(canonicalIdentityBytes(tuple).toString('utf8')).toBe(canonical);
    expect(doc).toContain(`${Buffer.byteLength(canonical)} bytes`);
  });

  it('documents the digest and name the implementation computes', () => {
    const identity = buildBindingIdentity(tuple);
    expect(identity).toEqual({ ok: true, value: { attachmentID: documentedID, shadowName: documentedName } });
  });

  it('is reproducible with sha256sum, independently of this code', () => {
    const digest = execFileSync('sha256sum', { input: canonical }).toString('utf8').split(' ')[0];
    expect(digest).toBe(documentedID);
  });
});
