/**
 * The few DER (X.690) encodings an X.509 certificate needs. Keys and signatures come from node:crypto,
 * which cannot build a certificate; this file only lays out the structure around them.
 */

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV: the tag byte, the definite length, the content. */
export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Buffer): Buffer => tlv(0x04, content);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const booleanTrue = (): Buffer => tlv(0x01, Buffer.from([0xff]));
/** [n] EXPLICIT: a constructed context-specific tag around one encoding. */
export const explicit = (tagNumber: number, inner: Buffer): Buffer => tlv(0xa0 | tagNumber, inner);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero keeps it positive). */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start += 1;
  const minimal = magnitude.subarray(start);
  return tlv(0x02, (minimal[0] ?? 0) >= 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

export function objectIdentifier(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift(0x80 | (value & 0x7f));
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A BIT STRING of whole bytes (keys, signatures). */
export const bitString = (content: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));

/** A named-bit BIT STRING (KeyUsage) holding bits 0–7, trailing zero bits dropped as DER requires. */
export function namedBits(bits: readonly number[]): Buffer {
  const byte = bits.reduce((value, bit) => value | (0x80 >> bit), 0);
  const unused = bits.length === 0 ? 0 : 7 - Math.max(...bits);
  return tlv(0x03, Buffer.from([unused, byte]));
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, both in whole seconds, UTC. */
export function time(at: Date): Buffer {
  const digits = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:T]/g, '');
  const year = at.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}
