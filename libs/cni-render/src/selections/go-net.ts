/**
 * The address syntaxes Multus validates selections with, as Go's net package parses them: a request
 * Multus would refuse must be refused here, and one it takes must not be refused for a stricter rule.
 */

const HEX = /^[0-9a-fA-F]{2}$/;

/** net.ParseMAC: 6, 8 or 20 octets as xx:xx…, xx-xx… or xxxx.xxxx…, one separator throughout. */
export function isGoMac(text: string): boolean {
  // Every accepted character is ASCII, so UTF-16 length equals Go's byte length for any valid input.
  // eslint-disable-next-line no-control-regex -- the check is exactly "ASCII only"
  if (text.length < 14 || !/^[\u0000-\u007f]*$/.test(text)) return false;
  const colonOrDash = text[2];
  if (colonOrDash === ':' || colonOrDash === '-') {
    if ((text.length + 1) % 3 !== 0) return false;
    const octets = (text.length + 1) / 3;
    if (octets !== 6 && octets !== 8 && octets !== 20) return false;
    for (let i = 0; i < octets; i += 1) {
      if (!HEX.test(text.slice(i * 3, i * 3 + 2))) return false;
      if (i < octets - 1 && text[i * 3 + 2] !== colonOrDash) return false;
    }
    return true;
  }
  if (text[4] === '.') {
    if ((text.length + 1) % 5 !== 0) return false;
    const groups = (text.length + 1) / 5;
    if (groups * 2 !== 6 && groups * 2 !== 8 && groups * 2 !== 20) return false;
    for (let i = 0; i < groups; i += 1) {
      if (!HEX.test(text.slice(i * 5, i * 5 + 2)) || !HEX.test(text.slice(i * 5 + 2, i * 5 + 4))) return false;
      if (i < groups - 1 && text[i * 5 + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

/** netip's IPv4 fields: exactly four decimal octets ≤ 255, no leading zeros, no empty field. */
function isIPv4(text: string): boolean {
  let fields = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && value === 0) return false;
      value = value * 10 + (c - 0x30);
      digits += 1;
      if (value > 255) return false;
    } else if (c === 0x2e) {
      if (digits === 0 || fields === 3) return false;
      fields += 1;
      value = 0;
      digits = 0;
    } else return false;
  }
  return fields === 3 && digits > 0;
}

type Parsed = { readonly ok: true; readonly is4: boolean; readonly zone: string } | { readonly ok: false };

function parseIPv6(input: string): Parsed {
  let text = input;
  let zone = '';
  const percent = text.indexOf('%');
  if (percent !== -1) {
    zone = text.slice(percent + 1);
    text = text.slice(0, percent);
    if (zone === '') return { ok: false };
  }
  let ellipsis = -1;
  if (text.startsWith('::')) {
    ellipsis = 0;
    text = text.slice(2);
    if (text === '') return { ok: true, is4: false, zone };
  }
  let filled = 0;
  while (filled < 16) {
    const group = /^[0-9a-fA-F]*/.exec(text)?.[0] ?? '';
    if (group.length === 0) return { ok: false };
    if (group.length > 4) return { ok: false };
    if (text[group.length] === '.') {
      // An embedded IPv4 address must take the last two fields.
      if ((ellipsis < 0 && filled !== 12) || filled + 4 > 16) return { ok: false };
      if (!isIPv4(text)) return { ok: false };
      text = '';
      filled += 4;
      break;
    }
    filled += 2;
    text = text.slice(group.length);
    if (text === '') break;
    if (text[0] !== ':' || text.length === 1) return { ok: false };
    text = text.slice(1);
    if (text[0] === ':') {
      if (ellipsis >= 0) return { ok: false };
      ellipsis = filled;
      text = text.slice(1);
      if (text === '') break;
    }
  }
  if (text !== '') return { ok: false };
  if (filled < 16 ? ellipsis < 0 : ellipsis >= 0) return { ok: false };
  return { ok: true, is4: false, zone };
}

/** netip.ParseAddr: the first ".", ":" or "%" decides the family. */
function parseAddr(text: string): Parsed {
  for (const char of text) {
    if (char === '.') return isIPv4(text) ? { ok: true, is4: true, zone: '' } : { ok: false };
    if (char === ':') return parseIPv6(text);
    if (char === '%') return { ok: false };
  }
  return { ok: false };
}

/** net.ParseIP: an address without a zone. */
export function isGoIP(text: string): boolean {
  const parsed = parseAddr(text);
  return parsed.ok && parsed.zone === '';
}

/** net.ParseCIDR: address (no zone) "/" decimal prefix length within the family's bits. */
export function isGoCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash === -1) return false;
  const parsed = parseAddr(text.slice(0, slash));
  if (!parsed.ok || parsed.zone !== '') return false;
  // Go's dtoi: decimal digits only, leading zeros allowed; it stops counting at 0xFFFFFF, far out of range anyway.
  if (slash + 1 === text.length) return false;
  let bits = 0;
  for (let i = slash + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
    bits = Math.min(bits * 10 + (c - 0x30), 0xffffff);
  }
  return bits <= (parsed.is4 ? 32 : 128);
}

/** The whitespace Go's strings.TrimSpace removes (unicode.IsSpace); JavaScript's trim() differs (U+0085, U+FEFF). */
const GO_SPACE = '\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

export function goTrimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && GO_SPACE.includes(text.charAt(start))) start += 1;
  while (end > start && GO_SPACE.includes(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}
