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

export type JsonParseError = { readonly kind: 'syntax' | 'duplicate-key' | 'too-deep'; readonly message: string; readonly position: number };

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

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
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
  readonly elementTexts: string[] = [];

  constructor(text: string) {
    this.text = text;
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
    for (;;) {
      const c = this.text.charCodeAt(this.index);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.index += 1;
      else return;
    }
  }

  private parseValue(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('too-deep', `nesting deeper than ${MAX_DEPTH}`);
    const c = this.text.charAt(this.index);
    switch (c) {
      case '{':
        return this.parseObject(depth);
      case '[':
        return this.parseArray(depth);
      case '"':
        return this.parseString();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default: {
        NUMBER.lastIndex = this.index;
        const match = NUMBER.exec(this.text);
        if (match === null) this.fail('syntax', c === '' ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
        this.index += match[0].length;
        return new JsonNumber(match[0]);
      }
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.index)) this.fail('syntax', `invalid literal`);
    this.index += word.length;
    return value;
  }

  private parseString(): string {
    const end = this.text.indexOf('"', this.index + 1);
    if (end > 0) {
      const body = this.text.slice(this.index + 1, end);
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
        const escape = this.text[this.index + 1] ?? '';
        if (escape === 'u') {
          const hex = this.text.slice(this.index + 2, this.index + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('syntax', 'invalid \\u escape');
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
    if (this.text[this.index] === ']') {
      this.index += 1;
      return items;
    }
    for (;;) {
      this.skipWhitespace();
      const start = this.index;
      items.push(this.parseValue(depth + 1));
      if (depth === 0) this.elementTexts.push(this.text.slice(start, this.index));
      this.skipWhitespace();
      const c = this.text[this.index];
      this.index += 1;
      if (c === ']') return items;
      if (c !== ',') this.fail('syntax', 'expected "," or "]" in array');
    }
  }

  private parseObject(depth: number): JsonObject {
    this.index += 1;
    const object: JsonObject = new Map();
    this.skipWhitespace();
    if (this.text[this.index] === '}') {
      this.index += 1;
      return object;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.index] !== '"') this.fail('syntax', 'expected a string key');
      const keyAt = this.index;
      const key = this.parseString();
      if (object.has(key)) {
        this.index = keyAt;
        this.fail('duplicate-key', `duplicate key ${JSON.stringify(key)}`);
      }
      this.skipWhitespace();
      if (this.text[this.index] !== ':') this.fail('syntax', 'expected ":" after key');
      this.index += 1;
      this.skipWhitespace();
      object.set(key, this.parseValue(depth + 1));
      this.skipWhitespace();
      const c = this.text[this.index];
      this.index += 1;
      if (c === '}') return object;
      if (c !== ',') this.fail('syntax', 'expected "," or "}" in object');
    }
  }
}

/** Parses strictly (RFC 8259, no duplicate keys); never throws. */
export function parseStrictJson(text: string): JsonParseResult {
  try {
    const parser = new Parser(text);
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
  let out = '{';
  let first = true;
  for (const [key, item] of value) {
    out += `${first ? '' : ','}${quote(key)}:${serializeJson(item)}`;
    first = false;
  }
  return `${out}}`;
}
