import type { z } from 'zod';
import { MESSAGE_TEXT_MAX_CHARS, messageExcerpt } from './message-value.ts';

/**
 * Longest map key or member name a field path repeats: a valid DRA attribute name is at most 63 + 1 + 32
 * characters, so anything longer is shown cut, never echoed whole.
 */
const SHOWN_NAME_CHARS = 100;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `<at>["<key>"]`: a map entry, its key JSON-quoted since keys contain dots and slashes. */
export function mapEntryPath(at: string, key: string): string {
  const shown = key.length <= SHOWN_NAME_CHARS ? key : `${key.slice(0, SHOWN_NAME_CHARS)}\u2026`;
  return `${at}[${JSON.stringify(shown)}]`;
}

/** `<at>.<name>` for a member named like an identifier; any other name is quoted as a map entry. */
export function memberPath(at: string, name: string): string {
  if (!IDENTIFIER.test(name) || name.length > SHOWN_NAME_CHARS) return mapEntryPath(at, name);
  return at === '' ? name : `${at}.${name}`;
}

/** One problem zod found, at its full field path. */
export interface FieldIssue {
  readonly field: string;
  readonly detail: string;
  /** A member the schema does not know: reported as `unknown field <path>`, one per member. */
  readonly unknown: boolean;
}

/** Every issue of `error`, each at its own path below `at`; an unrecognized key is one unknown field each. */
export function fieldIssues(error: z.ZodError, at: string): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const field = issue.path.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : memberPath(path, String(part))), at);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const unknownField = memberPath(field, key);
        return { field: unknownField, detail: `unknown field ${unknownField}`, unknown: true };
      });
    }
    return [{ field, detail: messageExcerpt(issue.message, MESSAGE_TEXT_MAX_CHARS), unknown: false }];
  });
}
