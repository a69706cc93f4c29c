import { type ErrorCode, type ObjectRef, type Result, fail, ok } from './errors.ts';

/**
 * Parses a JSON document that must be an object, as every contract annotation is. Never throws: bad
 * input becomes a typed error under the caller's code.
 */
export function parseJsonObject(raw: string, code: ErrorCode, object?: ObjectRef): Result<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return fail(code, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`, { object });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(code, `must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`, { object });
  }
  return ok(value as Record<string, unknown>);
}

/**
 * Splits version handling out of schema validation so an unknown version is reported as such
 * (an upgrade problem) and not as a malformed document (a data problem).
 */
export function checkVersion(
  document: Record<string, unknown>,
  supported: number,
  invalid: ErrorCode,
  unsupported: ErrorCode,
  object?: ObjectRef,
): Result<void> {
  const version = document['version'];
  if (version === undefined) return fail(invalid, 'has no version field', { object });
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return fail(invalid, `version ${JSON.stringify(version)} is not a positive integer`, { object });
  }
  if (version !== supported) return fail(unsupported, `version ${version} is not supported (this build reads version ${supported})`, { object });
  return ok(undefined);
}
