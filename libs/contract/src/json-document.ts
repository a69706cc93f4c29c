import type { z } from 'zod';
import { type ErrorCode, type ObjectRef, type Result, fail, ok } from './errors.ts';
import { toPlainData } from './json-plain-data.ts';
import { MESSAGE_TEXT_MAX_CHARS, messageExcerpt, messageValue } from './message-value.ts';
import { describeFirstIssue } from './schema-issues.ts';
import { type JsonParseError, JsonNumber, type JsonValue, isJsonObject, parseStrictJson } from './strict-json.ts';

const PARSE_PROBLEMS: Readonly<Record<JsonParseError['kind'], string>> = {
  syntax: 'is not valid JSON',
  'duplicate-key': 'repeats a key',
  'too-deep': 'is nested too deeply',
  'number-range': 'holds a number out of range',
};

function describeJsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof JsonNumber) return 'a number';
  return `a ${typeof value}`;
}

/**
 * Parses a JSON document that must be an object, as every contract annotation is. Strict: a repeated key
 * is an error (JSON.parse would keep the last one, and another reader might keep the first), and keys and
 * numbers reach the schema exactly as written. Never throws: bad input becomes a typed error under the
 * caller's code.
 */
export function parseJsonObject(raw: string, code: ErrorCode, object?: ObjectRef): Result<Record<string, unknown>> {
  if (typeof raw !== 'string') return fail(code, `must be a JSON string, got ${messageValue(raw)}`, { object });
  const parsed = parseStrictJson(raw);
  if (!parsed.ok) return fail(code, `${PARSE_PROBLEMS[parsed.error.kind]} (${messageExcerpt(parsed.error.message, MESSAGE_TEXT_MAX_CHARS)})`, { object });
  if (!isJsonObject(parsed.value)) return fail(code, `must be a JSON object, got ${describeJsonType(parsed.value)}`, { object });
  const plain = toPlainData(parsed.value);
  if (!plain.ok) return fail(code, plain.detail, { object });
  return ok(plain.value as Record<string, unknown>);
}

/** A versioned contract document: its supported version, its schema and its two error codes. */
export interface VersionedDocument<T> {
  readonly version: number;
  readonly schema: z.ZodType<T>;
  /** Malformed data. */
  readonly invalid: ErrorCode;
  /** Well-formed, but a version this build does not read: an upgrade problem, not a data problem. */
  readonly unsupported: ErrorCode;
}

/** Validates a decoded document: an object, at the supported version, matching the schema. */
export function validateVersioned<T>(document: unknown, kind: VersionedDocument<T>, object?: ObjectRef): Result<T> {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return fail(kind.invalid, 'must be a JSON object', { object });
  const version = (document as Record<string, unknown>)['version'];
  if (version === undefined) return fail(kind.invalid, 'has no version field', { object });
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return fail(kind.invalid, `version ${messageValue(version)} is not a positive integer`, { object });
  }
  if (version !== kind.version) return fail(kind.unsupported, `version ${version} is not supported (this build reads version ${kind.version})`, { object });
  const parsed = kind.schema.safeParse(document);
  return parsed.success ? ok(parsed.data) : fail(kind.invalid, describeFirstIssue(parsed.error), { object });
}

/** Parses and validates a raw annotation value. */
export function parseVersioned<T>(raw: string, kind: VersionedDocument<T>, object?: ObjectRef): Result<T> {
  const document = parseJsonObject(raw, kind.invalid, object);
  return document.ok ? validateVersioned(document.value, kind, object) : document;
}
