import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { isErrorCode } from './errors.ts';

/**
 * Shared examples of every contract document with their expected outcome. All three services run every
 * fixture through their own consuming code, so one contract has three independent checks. The files are
 * plain JSON so that implementations in other languages can use them too.
 */
export const FIXTURE_KINDS = [
  'binding-annotation',
  'managed-networks-registry',
  'generated-selection',
  'identity',
  'vf-config',
  'device-attributes',
  'sriov-resource-policy',
  'node-policy-dra',
  /** Source NAD + allocated PCI → exact shadow CNI bytes and SHA-256 (rendered by libs/cni-render). */
  'render',
] as const;

export type FixtureKind = (typeof FIXTURE_KINDS)[number];

const expectSchema = z.union([
  z.looseObject({ valid: z.literal(true) }),
  z.strictObject({ error: z.string().refine(isErrorCode, 'must be a known error code') }),
]);

const fixtureSchema = z
  .strictObject({
    description: z.string().min(1),
    kind: z.enum(FIXTURE_KINDS),
    /** A JSON document, as found after decoding. */
    input: z.unknown().optional(),
    /** The exact string as found in an annotation value, for cases JSON cannot express (malformed input). */
    inputRaw: z.string().optional(),
    expect: expectSchema,
  })
  .refine((fixture) => (fixture.input === undefined) !== (fixture.inputRaw === undefined), 'exactly one of input and inputRaw');

export interface ValidExpectation {
  readonly valid: true;
  /**
   * Expected values a consumer compares with what its own code read, stated literally and worked out
   * independently of the input's own fields: identity `canonical`, `attachmentID`, `shadowName`;
   * binding-annotation `shadowName`; managed-networks-registry `podUID`, `shadows`; device-attributes
   * `attributes` (by qualified name), `nadReference`; node-policy-dra `customAttributes`, `sriovNetwork`;
   * render `bytes`, `sha256`.
   */
  readonly [key: string]: unknown;
}

export interface Fixture {
  /** `<kind>/<file name without .json>` — unique, used in test names. */
  readonly id: string;
  readonly description: string;
  readonly kind: FixtureKind;
  readonly input: unknown;
  readonly inputRaw: string | undefined;
  /** `{ valid: true, ...expected values }` or `{ error: code }`. */
  readonly expect: ValidExpectation | { readonly error: string };
}

/** fixtures/ sits beside src/ and dist/, so the same relative path works from source and build. */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * Loads every fixture (or one kind) from `root`, a tree laid out like fixtures/ (one directory per kind).
 * A malformed fixture file is a programming error and throws.
 */
export function loadFixtures(kind?: FixtureKind, root: string = FIXTURES_DIR): Fixture[] {
  const kinds = kind === undefined ? FIXTURE_KINDS : [kind];
  return kinds.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => {
        const id = `${dir}/${file.slice(0, -'.json'.length)}`;
        const parsed = fixtureSchema.safeParse(JSON.parse(readFileSync(join(root, dir, file), 'utf8')));
        if (!parsed.success) throw new Error(`fixture ${id} is malformed: ${parsed.error.message}`);
        if (parsed.data.kind !== dir) throw new Error(`fixture ${id} declares kind ${parsed.data.kind} but lives in ${dir}/`);
        return { id, ...parsed.data, inputRaw: parsed.data.inputRaw } as Fixture;
      }),
  );
}

/** The fixture input as the annotation string a consumer reads from an object. */
export function rawInput(fixture: Fixture): string {
  return fixture.inputRaw ?? JSON.stringify(fixture.input);
}

export function expectsValid(fixture: Fixture): fixture is Fixture & { expect: ValidExpectation } {
  return 'valid' in fixture.expect;
}

export function expectedError(fixture: Fixture): string | undefined {
  return 'valid' in fixture.expect ? undefined : fixture.expect.error;
}
