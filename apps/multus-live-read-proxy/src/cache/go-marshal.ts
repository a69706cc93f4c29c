import { goFoldEqual } from '@sriov-dra/cni-render';

/**
 * The pieces of Go's encoding/json that the delegate cache's format depends on: how a string is
 * quoted on output, how a map's keys are ordered, and which input key fills a struct field.
 */

/** Go's quoting: like JSON.stringify, but <, > and & and U+2028/U+2029 escaped, and lone surrogates as U+FFFD. */
export function goQuote(text: string): string {
  return JSON.stringify(text.toWellFormed()).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go writes map keys sorted by their UTF-8 bytes. */
export function goMapKeyOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The value Go decodes into struct field `field`: every key of the object that matches the field
 * (exactly or case-insensitively) assigns it in turn, so the last such key wins. `undefined` when no
 * key matches.
 */
export function goField(object: Readonly<Record<string, unknown>>, field: string): unknown {
  let value: unknown;
  for (const key of Object.keys(object)) if (goFoldEqual(key, field)) value = object[key];
  return value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
