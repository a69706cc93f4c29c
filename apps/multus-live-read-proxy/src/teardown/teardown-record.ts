import { z } from 'zod';
import { type DelInputs, delInputsSchema } from './del-inputs.ts';
import { type PodIdentity, podIdentitySchema } from './pod-identity.ts';
import { decodeRecord } from './record-json.ts';

/**
 * Why a container's delegates are waiting to be deleted by the daemon itself: its DEL failed (the upstream
 * shim reports success to the runtime anyway, so the runtime never retries), the undo of a failed ADD
 * failed, its Pod is gone while the daemon was down, or a CNI GC left it out of the valid attachments.
 */
export const TEARDOWN_REASONS = ['DelFailed', 'AddRollbackFailed', 'PodGone', 'NotInValidAttachments'] as const;
export type TeardownReason = (typeof TEARDOWN_REASONS)[number];

/** A pending teardown (<cniDir>/.sriov-dra/teardowns/<containerID>.json): removed with the delegate cache, once every delegate's DEL succeeded. */
export interface TeardownRecord {
  readonly version: 1;
  readonly containerID: string;
  readonly del: DelInputs;
  readonly pod: PodIdentity;
  readonly reason: TeardownReason;
  /** DEL attempts of every delegate that have failed so far. */
  readonly attempts: number;
  /** The failures of the last attempt; '' before the first. */
  readonly lastError: string;
  /** ISO 8601 times. */
  readonly pendingSince: string;
  readonly lastAttemptAt: string;
}

const teardownRecordSchema = z.object({
  version: z.literal(1),
  containerID: z.string().min(1),
  del: delInputsSchema,
  pod: podIdentitySchema,
  reason: z.enum(TEARDOWN_REASONS),
  attempts: z.number().int().nonnegative(),
  lastError: z.string(),
  pendingSince: z.string(),
  lastAttemptAt: z.string(),
});

export function encodeTeardownRecord(record: TeardownRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
}

/** The record in `data`, or a TeardownStateError (TeardownRecordCorrupt) naming `path` and what is wrong. */
export function decodeTeardownRecord(data: Uint8Array, path: string): TeardownRecord {
  return decodeRecord(data, path, teardownRecordSchema, 'TeardownRecordCorrupt');
}
