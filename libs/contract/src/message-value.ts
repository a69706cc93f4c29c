/** Longest excerpt of an input value an error message repeats; the rest is summarized by its length. */
export const MESSAGE_VALUE_MAX_CHARS = 80;
/** Longest free text (a parser's or schema's own message, which may quote input) an error repeats. */
export const MESSAGE_TEXT_MAX_CHARS = 4 * MESSAGE_VALUE_MAX_CHARS;

/** A text cut to `max` characters, saying how long it was. */
export function messageExcerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/**
 * An input value as an error message shows it: strings JSON-quoted and cut to a bounded excerpt, other
 * values by type. Never throws (BigInt, cycles, hostile toString), so a rejection cannot itself fail on
 * the garbage it reports, and a megabyte of input never becomes a megabyte of log line.
 */
export function messageValue(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length <= MESSAGE_VALUE_MAX_CHARS) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, MESSAGE_VALUE_MAX_CHARS))}… (${value.length} characters)`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value.toString()}n`;
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}
