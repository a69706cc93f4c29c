// A strict, small XML reader for the chart specs: it accepts only well-formed documents (balanced tags,
// quoted attributes, known entities, no stray `<` or `&`) and gives back the tree with text decoded, so a
// spec can check what a reader of the SVG would see.

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly (XmlElement | string)[];
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NAME = /^[A-Za-z_:][\w.:-]*/;

function decode(raw: string, at: number): string {
  if (raw.includes('<')) throw new Error(`unescaped < near offset ${String(at)}`);
  return raw.replaceAll(/&([^;]*);?/g, (whole, entity: string) => {
    if (!whole.endsWith(';')) throw new Error(`unterminated entity near offset ${String(at)}`);
    const named = ENTITIES[entity];
    if (named !== undefined) return named;
    const numeric = /^#(x[0-9a-fA-F]+|[0-9]+)$/.exec(entity);
    if (numeric?.[1] === undefined) throw new Error(`unknown entity &${entity}; near offset ${String(at)}`);
    return String.fromCodePoint(numeric[1].startsWith('x') ? parseInt(numeric[1].slice(1), 16) : Number(numeric[1]));
  });
}

/** Parses one document; throws on anything that is not well-formed. */
export function parseXml(text: string): XmlElement {
  let at = 0;
  const rest = () => text.slice(at);
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text.charAt(at))) at++;
  };
  if (rest().startsWith('<?xml')) at = text.indexOf('?>') + 2;
  skipSpace();

  function element(): XmlElement {
    if (text.charAt(at) !== '<') throw new Error(`expected < at offset ${String(at)}`);
    at++;
    const name = NAME.exec(rest())?.[0];
    if (name === undefined) throw new Error(`expected an element name at offset ${String(at)}`);
    at += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = at;
      skipSpace();
      if (rest().startsWith('/>')) {
        at += 2;
        return { name, attributes, children: [] };
      }
      if (text.charAt(at) === '>') {
        at++;
        break;
      }
      if (at === before) throw new Error(`expected space before an attribute at offset ${String(at)}`);
      const attribute = NAME.exec(rest())?.[0];
      if (attribute === undefined) throw new Error(`expected an attribute name at offset ${String(at)}`);
      at += attribute.length;
      const quoted = /^\s*=\s*(["'])/.exec(rest());
      if (quoted?.[1] === undefined) throw new Error(`attribute ${attribute} has no quoted value at offset ${String(at)}`);
      at += quoted[0].length;
      const end = text.indexOf(quoted[1], at);
      if (end < 0) throw new Error(`attribute ${attribute} is not closed`);
      if (attribute in attributes) throw new Error(`attribute ${attribute} repeated on <${name}>`);
      attributes[attribute] = decode(text.slice(at, end), at);
      at = end + 1;
    }
    const children: (XmlElement | string)[] = [];
    for (;;) {
      if (at >= text.length) throw new Error(`<${name}> is not closed`);
      if (rest().startsWith('</')) {
        const close = /^<\/([A-Za-z_:][\w.:-]*)\s*>/.exec(rest());
        if (close?.[1] !== name) throw new Error(`<${name}> closed by ${rest().slice(0, 20)} at offset ${String(at)}`);
        at += close[0].length;
        return { name, attributes, children };
      }
      if (text.charAt(at) === '<') {
        children.push(element());
        continue;
      }
      const next = text.indexOf('<', at);
      const end = next < 0 ? text.length : next;
      children.push(decode(text.slice(at, end), at));
      at = end;
    }
  }

  const root = element();
  skipSpace();
  if (at !== text.length) throw new Error(`content after the root element at offset ${String(at)}`);
  return root;
}

/** Every element under (and including) `root`, depth first. */
export function descendants(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap((child) => (typeof child === 'string' ? [] : descendants(child)))];
}

/** The element's text, decoded, without its children's markup. */
export function textOf(element: XmlElement): string {
  return element.children.map((child) => (typeof child === 'string' ? child : textOf(child))).join('');
}
