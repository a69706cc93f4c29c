/**
 * Lossless, strict JSON for CNI configuration (§7 step 2). JSON.parse is unusable here: it turns every
 * number into a float64 (big integers and "1.0" vs "1" change), keeps the last of duplicate keys
 * silently, and reorders integer-like keys. This parser keeps each number's exact source text and each
 * object's key order, and rejects any duplicate key: a configuration whose meaning depends on which
 * duplicate a consumer picks cannot be rendered safely.
 */

/** A number exactly as written in the source. */
export class JsonNumber {
  readonly raw: string;
  constructor(raw: string) {
    this.raw = raw;
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** Objects keep key order and allow any key (including "__proto__"). */
export type JsonObject = Map<string, JsonValue>;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

export type JsonParseError = {
  readonly kind: 'syntax' | 'duplicate-key' | 'too-deep' | 'number-range';
  readonly message: string;
  readonly position: number;
};

/**
 * Stricter readings for documents another decoder will read too. Checked while parsing, so a caller
 * pays no second walk over the tree.
 */
export interface StrictJsonOptions {
  /**
   * Keys this relation calls equal are duplicates as well (e.g. equal under Go's case folding). It
   * may only relate keys of the same UTF-16 length, which lets keys of different lengths skip it.
   */
  readonly sameKey?: (a: string, b: string) => boolean;
  /** Refuse numbers whose magnitude rounds to infinity as a float64. */
  readonly finiteNumbers?: boolean;
}

export type JsonParseResult =
  | {
      readonly ok: true;
      readonly value: JsonValue;
      /** For an array document: the exact source text of each element, in order. */
      readonly elementTexts: readonly string[];
    }
  | { readonly ok: false; readonly error: JsonParseError };

/** Nesting bound: deeper documents are rejected instead of exhausting the stack. */
export const MAX_DEPTH = 128;

class ParseFailure extends Error {
  readonly detail: JsonParseError;
  constructor(detail: JsonParseError) {
    super(detail.message);
    this.detail = detail;
  }
}

const WHITESPACE = /[ \t\n\r]*/y;
/** Escapes and control characters: a string without them (the common case) is taken in one step. */
// eslint-disable-next-line no-control-regex -- JSON strings may not contain raw control characters
const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;
/** Characters JSON.stringify would escape (quotes, backslash, controls, lone surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class Parser {
  private index = 0;
  private readonly text: string;
  private readonly sameKey: ((a: string, b: string) => boolean) | undefined;
  private readonly finiteNumbers: boolean;
  readonly elementTexts: string[] = [];

  constructor(text: string, options: StrictJsonOptions) {
    this.text = text;
    this.sameKey = options.sameKey;
    this.finiteNumbers = options.finiteNumbers === true;
  }

  /** A key of the object being parsed that is the same as `key` under `sameKey`, if any. */
  private twinOf(keys: Iterable<string>, key: string, sameKey: (a: string, b: string) => boolean): string | undefined {
    for (const earlier of keys) if (earlier.length === key.length && sameKey(earlier, key)) return earlier;
    return undefined;
  }

  parseDocument(): JsonValue {
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.index !== this.text.length) this.fail('syntax', 'unexpected content after the JSON value');
    return value;
  }

  private fail(kind: JsonParseError['kind'], message: string): never {
    throw new ParseFailure({ kind, message: `${message} at offset ${this.index}`, position: this.index });
  }

  private skipWhitespace(): void {
    // Most calls find no whitespace at all; runs (indentation) are left to the regex engine.
    const c = this.text.charCodeAt(this.index);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    WHITESPACE.lastIndex = this.index;
    WHITESPACE.test(this.text);
    this.index = WHITESPACE.lastIndex;
  }

  private parseValue(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('too-deep', `nesting deeper than ${MAX_DEPTH}`);
    switch (this.text.charCodeAt(this.index)) {
      case 0x7b: // {
        return this.parseObject(depth);
      case 0x5b: // [
        return this.parseArray(depth);
      case 0x22: // "
        return this.parseString();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default: {
        const end = this.scanNumber();
        if (end === this.index) {
          const c = this.text.charAt(this.index);
          this.fail('syntax', c === '' ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
        }
        const raw = this.text.slice(this.index, end);
        // Without an exponent, fewer than 309 digits cannot reach float64's maximum (about 1.8e308).
        // Stryker disable next-line Regex: /[^eE]/ matches every number, which only drops this shortcut
        if (this.finiteNumbers && (raw.length >= 309 || /[eE]/.test(raw)) && !Number.isFinite(Number(raw))) {
          this.fail('number-range', `the number ${raw} does not fit a float64`);
        }
        this.index = end;
        return new JsonNumber(raw);
      }
    }
  }

  private digitsFrom(position: number): number {
    let at = position;
    for (;;) {
      const c = this.text.charCodeAt(at);
      if (c >= 0x30 && c <= 0x39) at += 1;
      else return at;
    }
  }

  /**
   * The end of the RFC 8259 number starting at the cursor, or the cursor itself when none starts
   * there: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? , each optional part taken only if complete.
   */
  private scanNumber(): number {
    const text = this.text;
    let at = this.index;
    if (text.charCodeAt(at) === 0x2d) at += 1;
    const first = text.charCodeAt(at);
    if (first === 0x30) at += 1;
    else if (first >= 0x31 && first <= 0x39) at = this.digitsFrom(at + 1);
    else return this.index;
    if (text.charCodeAt(at) === 0x2e) {
      const fraction = this.digitsFrom(at + 1);
      if (fraction > at + 1) at = fraction;
    }
    const e = text.charCodeAt(at);
    if (e === 0x65 || e === 0x45) {
      const sign = text.charCodeAt(at + 1);
      const digitsAt = sign === 0x2b || sign === 0x2d ? at + 2 : at + 1;
      const exponent = this.digitsFrom(digitsAt);
      if (exponent > digitsAt) at = exponent;
    }
    return at;
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.index)) this.fail('syntax', `invalid literal`);
    this.index += word.length;
    return value;
  }

  private parseString(): string {
    const end = this.text.indexOf('"', this.index + 1);
    // The one-step path only saves work: the loop below reads such a string to the same result.
    // Stryker disable next-line BlockStatement: an emptied block leaves every string to the loop below
    if (end > 0) {
      const body = this.text.slice(this.index + 1, end);
      // Stryker disable next-line BlockStatement: an emptied block leaves every string to the loop below
      if (!ESCAPE_OR_CONTROL.test(body)) {
        this.index = end + 1;
        return body;
      }
    }
    this.index += 1; // opening quote
    let out = '';
    let start = this.index;
    for (;;) {
      const c = this.text.charCodeAt(this.index);
      if (Number.isNaN(c)) this.fail('syntax', 'unterminated string');
      if (c === 0x22) {
        out += this.text.slice(start, this.index);
        this.index += 1;
        return out;
      }
      if (c < 0x20) this.fail('syntax', 'control character in string');
      if (c === 0x5c) {
        out += this.text.slice(start, this.index);
        const escape = this.text.charAt(this.index + 1); // '' past the end: no escape
        if (escape === 'u') {
          const hex = this.text.slice(this.index + 2, this.index + 6);
          // hex holds at most four characters, so four hex digits anywhere in it are all of it.
          if (!/[0-9a-fA-F]{4}/.test(hex)) this.fail('syntax', 'invalid \\u escape');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.index += 6;
        } else {
          const decoded = ESCAPES[escape];
          if (decoded === undefined) this.fail('syntax', 'invalid escape');
          out += decoded;
          this.index += 2;
        }
        start = this.index;
        continue;
      }
      this.index += 1;
    }
  }

  private parseArray(depth: number): JsonValue[] {
    this.index += 1;
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.index) === 0x5d) {
      this.index += 1;
      return items;
    }
    for (;;) {
      this.skipWhitespace();
      const start = this.index;
      items.push(this.parseValue(depth + 1));
      if (depth === 0) this.elementTexts.push(this.text.slice(start, this.index));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.index);
      if (c !== 0x2c && c !== 0x5d) this.fail('syntax', 'expected "," or "]" in array');
      this.index += 1;
      if (c === 0x5d) return items;
    }
  }

  private parseObject(depth: number): JsonObject {
    this.index += 1;
    const object: JsonObject = new Map();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.index) === 0x7d) {
      this.index += 1;
      return object;
    }
    const sameKey = this.sameKey;
    // Bit n set: a key of UTF-16 length n was seen. sameKey relates only keys of one length, so a key
    // whose length is new has no twin and is not compared at all.
    let lengths = 0;
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.index) !== 0x22) this.fail('syntax', 'expected a string key');
      const keyAt = this.index;
      const key = this.parseString();
      if (sameKey !== undefined) {
        // The mask only spares twinOf calls (twinOf compares equal lengths alone), so a key that gets
        // another key's bit, or none, is still checked against exactly its same-length predecessors.
        // Stryker disable next-line ConditionalExpression,EqualityOperator: any bit choice finds the same twins
        const bit = key.length < 31 ? 1 << key.length : 0;
        const twin = bit !== 0 && (lengths & bit) === 0 ? undefined : this.twinOf(object.keys(), key, sameKey);
        if (twin !== undefined) {
          this.index = keyAt;
          this.fail(
            'duplicate-key',
            twin === key ? `duplicate key ${JSON.stringify(key)}` : `keys ${JSON.stringify(twin)} and ${JSON.stringify(key)} are the same key when folded`,
          );
        }
        lengths |= bit;
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.index) !== 0x3a) this.fail('syntax', 'expected ":" after key');
      this.index += 1;
      this.skipWhitespace();
      const size = object.size;
      // One hash operation per key: a set that does not grow the map met a duplicate.
      object.set(key, this.parseValue(depth + 1));
      if (object.size === size) {
        this.index = keyAt;
        this.fail('duplicate-key', `duplicate key ${JSON.stringify(key)}`);
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.index);
      if (c !== 0x2c && c !== 0x7d) this.fail('syntax', 'expected "," or "}" in object');
      this.index += 1;
      if (c === 0x7d) return object;
    }
  }
}

/** Parses strictly (RFC 8259, no duplicate keys, plus the stricter options); never throws. */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): JsonParseResult {
  try {
    const parser = new Parser(text, options);
    const value = parser.parseDocument();
    return { ok: true, value, elementTexts: parser.elementTexts };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, error: error.detail };
    throw error;
  }
}

function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Compact serialization: numbers as written, keys in order, strings escaped as JSON.stringify does. */
export function serializeJson(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  if (value instanceof JsonNumber) return value.raw;
  if (Array.isArray(value)) return `[${value.map(serializeJson).join(',')}]`;
  let out = '';
  // forEach, unlike entries(), allocates no [key, value] pair per member.
  value.forEach((item, key) => {
    out += `,${quote(key)}:${serializeJson(item)}`;
  });
  return `{${out.slice(1)}}`; // drops the leading comma; an empty map gives {}
}
