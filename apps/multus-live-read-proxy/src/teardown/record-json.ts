import type { z } from 'zod';
import { type TeardownStateCode, TeardownStateError } from './teardown-state-error.ts';

/** Parses one of the daemon's teardown-state records: JSON, then its schema; anything else is corrupt. */
export function decodeRecord<T>(data: Uint8Array, path: string, schema: z.ZodType<T>, code: TeardownStateCode): T {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (error) {
    throw new TeardownStateError(code, path, 'not JSON', error);
  }
  const parsed = schema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'the record' : issue.path.map(String).join('.');
    throw new TeardownStateError(code, path, `${where}: ${issue?.message ?? 'does not match the record schema'}`);
  }
  return parsed.data;
}
