import type { z } from 'zod';
import { MESSAGE_TEXT_MAX_CHARS, MESSAGE_VALUE_MAX_CHARS, messageExcerpt } from './message-value.ts';

/** One readable line for the first problem zod found: `field.path: message`, of bounded length. */
export function describeFirstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid value';
  // Keys are input, and zod quotes unknown keys whole in its message: both are cut to excerpts.
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${messageExcerpt(String(part), MESSAGE_VALUE_MAX_CHARS)}`)).join('');
  const field = messageExcerpt(path.startsWith('.') ? path.slice(1) : path, MESSAGE_TEXT_MAX_CHARS);
  const message = messageExcerpt(issue.message, MESSAGE_TEXT_MAX_CHARS);
  return field === '' ? message : `${field}: ${message}`;
}
