import { type JsonObject, type JsonValue, JsonNumber, isJsonObject } from '@sriov-dra/contract';

/**
 * How Go's encoding/json reads the bytes we write. Multus, libcni and sriov-cni decode CNI
 * configurations and network selections into structs, and Go matches an object key to a struct field
 * exactly first and otherwise case-insensitively, the last matching key winning. A document that our
 * parser sees as `"deviceID":"A","DeviceID":"B"` is one field with value B to Go. Everything here
 * exists so that what we accept means to Go exactly what it means to us.
 */

/** Simple (1:1) uppercase of a code point whose full mapping expands: Greek iota-subscript letters go to titlecase. */
function simpleUpperOfExpanding(cp: number): number {
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7)) return cp + 8;
  if (cp === 0x1fb3 || cp === 0x1fc3 || cp === 0x1ff3) return cp + 9;
  // The other expanding letters (ß, ŉ, ǰ, ligatures …) have no simple uppercase.
  return cp;
}

function simpleLower(cp: number): number {
  // U+0130 is the one code point whose full lowercase expands; its simple lowercase is "i".
  if (cp === 0x130) return 0x69;
  const lower = String.fromCodePoint(cp).toLowerCase();
  return lower.length === String.fromCodePoint(cp).length ? (lower.codePointAt(0) ?? cp) : cp;
}

function simpleUpper(cp: number): number {
  const upper = String.fromCodePoint(cp).toUpperCase();
  const first = upper.codePointAt(0) ?? cp;
  // More than one code point means a full (expanding) mapping, which Go's unicode.ToUpper never uses.
  if (upper.length !== String.fromCodePoint(first).length) return simpleUpperOfExpanding(cp);
  return first;
}

// eslint-disable-next-line no-control-regex -- ASCII is exactly the fast path
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * Go's folded form of an object key (encoding/json foldName): ASCII letters uppercased, any other code
 * point mapped through unicode.ToUpper(unicode.ToLower(r)), so "K" (U+212A KELVIN SIGN) folds like
 * "k" and "ſ" (U+017F) like "s". A lone surrogate is what Go decodes it to, U+FFFD.
 */
export function goFoldKey(key: string): string {
  if (ASCII.test(key)) return key.toUpperCase();
  let out = '';
  for (const char of key) {
    const cp = char.codePointAt(0) ?? 0xfffd;
    if (cp < 0x80) out += char.toUpperCase();
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else out += String.fromCodePoint(simpleUpper(simpleLower(cp)));
  }
  return out;
}

/** goFoldKey(a) === goFoldKey(b), without building either form when both are ASCII (the common case). */
export function goFoldEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0x80 || y >= 0x80) return goFoldKey(a) === goFoldKey(b);
    if (x >= 0x61 && x <= 0x7a) x -= 0x20;
    if (y >= 0x61 && y <= 0x7a) y -= 0x20;
    if (x !== y) return false;
  }
  return true;
}

/** Two distinct keys of one object that Go would read as the same struct field. */
export interface FoldedKeyPair {
  readonly first: string;
  readonly second: string;
}

/**
 * The first pair of keys in the object that fold to the same form, if any. Folding never changes a
 * key's UTF-16 length (simple case mappings stay within their plane), so a key is folded and compared
 * only when an earlier key has its length: most objects are answered without folding a single key.
 */
export function findFoldedDuplicate(object: JsonObject): FoldedKeyPair | undefined {
  if (object.size < 2) return undefined;
  let lengths = 0;
  let index = 0;
  for (const key of object.keys()) {
    // The bitmask only skips work: keys of one length always share a bit, so a wrong bit can add comparisons but never miss a pair.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above.
    const bit = key.length < 31 ? 1 << key.length : 0;
    if (bit === 0 || (lengths & bit) !== 0) {
      let earlierIndex = 0;
      for (const earlier of object.keys()) {
        if (earlierIndex === index) break;
        earlierIndex += 1;
        if (goFoldEqual(earlier, key)) return { first: earlier, second: key };
      }
    }
    lengths |= bit;
    index += 1;
  }
  return undefined;
}

/**
 * True when Go can decode the number into a float64 (what map[string]interface{} holds): strconv
 * rejects magnitudes that round to infinity, and so do we. Both round correctly, so the sets agree.
 */
export function isGoFloat64(number: JsonNumber): boolean {
  // Without an exponent, fewer than 309 digits cannot reach float64's maximum (about 1.8e308).
  const raw = number.raw;
  // Stryker disable next-line StringLiteral: with '' both tests fail and Number() below answers the same for any literal.
  if (raw.length < 309 && !raw.includes('e') && !raw.includes('E')) return true;
  return Number.isFinite(Number(raw));
}

/** The path and text of the first number in the tree that Go cannot decode into a float64. */
export function findFloat64Overflow(value: JsonValue, path = ''): { readonly path: string; readonly raw: string } | undefined {
  if (value instanceof JsonNumber) return isGoFloat64(value) ? undefined : { path: path === '' ? '(root)' : path, raw: value.raw };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findFloat64Overflow(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isJsonObject(value)) {
    for (const [key, item] of value) {
      const found = findFloat64Overflow(item, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Go's strconv.ParseInt(text, 10, 64) on a JSON number literal: what decoding into an int field accepts. */
export function isGoInt64(number: JsonNumber): boolean {
  if (!/^-?(?:0|[1-9]\d*)$/.test(number.raw)) return false;
  const value = BigInt(number.raw);
  return value >= -(2n ** 63n) && value < 2n ** 63n;
}
