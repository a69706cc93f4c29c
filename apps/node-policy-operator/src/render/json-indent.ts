/**
 * Re-indents one valid JSON document the way Go's json.Indent does with an empty prefix, which is how
 * the upstream operator formats a NAD's spec.config. Working on the text, not on a parsed value, keeps
 * every token exactly as written: numbers of any size, string escapes (`\u0041` stays `\u0041`) and
 * key order, so the result matches upstream byte for byte.
 *
 * Whitespace outside strings is dropped and rewritten: a newline plus one `unit` per depth after `{`,
 * `[` and `,` and before a closing bracket, one space after `:`, and nothing inside `{}` or `[]`. The
 * input must already be valid JSON; this function does not check it.
 */
export function indentJson(text: string, unit: string): string {
  let out = '';
  let depth = 0;
  // Set after `{` or `[`: the line break is written only once the container proves nonempty.
  let opened = false;
  const newline = (): string => `\n${unit.repeat(depth)}`;
  for (let at = 0; at < text.length; at += 1) {
    const c = text.charAt(at);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    const closing = c === '}' || c === ']';
    if (opened && !closing) {
      depth += 1;
      out += newline();
    }
    if (closing) {
      if (!opened) {
        depth -= 1;
        out += newline();
      }
      opened = false;
      out += c;
    } else if (c === '{' || c === '[') {
      opened = true;
      out += c;
    } else {
      opened = false;
      if (c === ',') out += `,${newline()}`;
      else if (c === ':') out += ': ';
      else if (c === '"') {
        const end = endOfString(text, at);
        out += text.slice(at, end);
        at = end - 1;
      } else out += c;
    }
  }
  return out;
}

/** The index just past the closing quote of the string that opens at `start` (or the end of an unterminated one). */
function endOfString(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length && text.charAt(at) !== '"') at += text.charAt(at) === '\\' ? 2 : 1;
  return at + 1;
}
