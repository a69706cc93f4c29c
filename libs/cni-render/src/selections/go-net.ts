/**
 * The address syntaxes Multus validates selections with, as Go's net package parses them: a request
 * Multus would refuse must be refused here, and one it takes must not be refused for a stricter rule.
 */

const HEX = /^[0-9a-fA-F]{2}$/;

/**
 * net.ParseMAC: 6, 8 or 20 octets as xx:xx…, xx-xx… or xxxx.xxxx…, one separator throughout. Every
 * accepted character is ASCII, so counting UTF-16 units counts Go's bytes for anything accepted; Go's
 * up-front "at least 14 bytes" check is implied by the octet counts.
 */
export function isGoMac(text: string): boolean {
  const separator = text[2];
  if (separator === ':' || separator === '-') {
    const octets = (text.length + 1) / 3;
    if (octets !== 6 && octets !== 8 && octets !== 20) return false;
    for (let i = 0; i < octets; i += 1) {
      if (!HEX.test(text.slice(i * 3, i * 3 + 2))) return false;
      if (i < octets - 1 && text[i * 3 + 2] !== separator) return false;
    }
    return true;
  }
  // Otherwise Go expects the dotted form, whose first "." is at index 4; the loop checks it.
  const octets = ((text.length + 1) / 5) * 2;
  if (octets !== 6 && octets !== 8 && octets !== 20) return false;
  for (let i = 0; i < octets / 2; i += 1) {
    if (!HEX.test(text.slice(i * 5, i * 5 + 2)) || !HEX.test(text.slice(i * 5 + 2, i * 5 + 4))) return false;
    if (i < octets / 2 - 1 && text[i * 5 + 4] !== '.') return false;
  }
  return true;
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
      // A fifth field is refused at the end, where exactly four are required.
      if (digits === 0) return false;
      fields += 1;
      value = 0;
      digits = 0;
    } else return false;
  }
  return fields === 3 && digits > 0;
}

/**
 * netip's IPv6 syntax without a zone: net.ParseIP and net.ParseCIDR refuse every address with a zone,
 * so a "%" is simply a character no group may contain.
 */
function isIPv6(input: string): boolean {
  let text = input;
  let ellipsis = -1;
  if (text.startsWith('::')) {
    ellipsis = 0;
    text = text.slice(2);
    if (text === '') return true;
  }
  let filled = 0;
  while (filled < 16) {
    const group = /^[0-9a-fA-F]*/.exec(text)?.[0] ?? '';
    if (group.length === 0 || group.length > 4) return false;
    if (text[group.length] === '.') {
      // An embedded IPv4 address takes the last four bytes; with fewer groups before it and no "::",
      // the check after the loop refuses the address as too short.
      if (filled > 12) return false;
      if (!isIPv4(text)) return false;
      text = '';
      filled += 4;
      break;
    }
    filled += 2;
    text = text.slice(group.length);
    if (text === '') break;
    if (text[0] !== ':' || text.length === 1) return false;
    text = text.slice(1);
    if (text[0] === ':') {
      if (ellipsis >= 0) return false;
      ellipsis = filled;
      text = text.slice(1);
      if (text === '') break;
    }
  }
  if (text !== '') return false;
  // Too few groups need a "::" to fill them; sixteen bytes leave nothing for one to stand for.
  return filled < 16 ? ellipsis >= 0 : ellipsis < 0;
}

/** netip.ParseAddr as net.ParseIP uses it: the first "." or ":" decides the family. The bits of the address, or 0. */
function addressBits(text: string): 0 | 32 | 128 {
  for (const char of text) {
    if (char === '.') return isIPv4(text) ? 32 : 0;
    if (char === ':') return isIPv6(text) ? 128 : 0;
  }
  return 0;
}

/** net.ParseIP. */
export function isGoIP(text: string): boolean {
  return addressBits(text) !== 0;
}

/** net.ParseCIDR: address "/" decimal prefix length within the family's bits. */
export function isGoCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash === -1) return false;
  const bits = addressBits(text.slice(0, slash));
  if (bits === 0 || slash + 1 === text.length) return false;
  // Go's dtoi: decimal digits only, leading zeros allowed; it stops counting at 0xFFFFFF, far out of range anyway.
  let prefix = 0;
  for (let i = slash + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
    prefix = Math.min(prefix * 10 + (c - 0x30), 0xffffff);
  }
  return prefix <= bits;
}

/** The whitespace Go's strings.TrimSpace removes (unicode.IsSpace); JavaScript's trim() differs (U+0085, U+FEFF). */
const GO_SPACE: ReadonlySet<string> = new Set(
  '\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000',
);

export function goTrimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && GO_SPACE.has(text.charAt(start))) start += 1;
  while (end > start && GO_SPACE.has(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}
