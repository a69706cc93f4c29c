import { JsonNumber, type JsonValue } from './strict-json.ts';

export type PlainDataResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly detail: string };

class Unrepresentable extends Error {}

/** `a.b[0].c`; built only for an error, so conversion allocates no path strings. */
function describePath(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the root';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

function convert(value: JsonValue, path: (string | number)[]): unknown {
  if (value instanceof JsonNumber) {
    const number = Number(value.raw);
    // Only a number that prints back exactly as written is the same number to every reader: "1.0", "1e0"
    // and 2^53+1 would each turn into a different spelling or value here than in a Go int.
    if (String(number) !== value.raw) throw new Unrepresentable(`number ${value.raw} at ${describePath(path)} cannot be read exactly`);
    return number;
  }
  if (Array.isArray(value)) {
    const array: unknown[] = [];
    for (let index = 0; index < value.length; index += 1) {
      path.push(index);
      array.push(convert(value[index] as JsonValue, path));
      path.pop();
    }
    return array;
  }
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) {
      path.push(key);
      const converted = convert(item, path);
      path.pop();
      // Assigning "__proto__" would replace the prototype and hide the key; defined as an own property
      // it is an ordinary key that a strict schema sees (and rejects as unknown). Other keys are
      // assigned, which keeps the objects in V8's fast mode for the schema that reads them next.
      if (key === '__proto__') Object.defineProperty(object, key, { value: converted, enumerable: true, writable: true, configurable: true });
      else object[key] = converted;
    }
    return object;
  }
  return value;
}

/**
 * Turns parseStrictJson output into the plain data a zod schema validates, without losing a key or
 * changing a number. Nesting is already bounded by the parser. Never throws.
 */
export function toPlainData(value: JsonValue): PlainDataResult {
  try {
    return { ok: true, value: convert(value, []) };
  } catch (error) {
    if (error instanceof Unrepresentable) return { ok: false, detail: error.message };
    throw error;
  }
}
