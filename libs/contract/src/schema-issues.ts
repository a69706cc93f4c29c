import type { z } from 'zod';

/** One readable line for the first problem zod found: `field.path: message`. */
export function describeFirstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid value';
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const field = path.startsWith('.') ? path.slice(1) : path;
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}
