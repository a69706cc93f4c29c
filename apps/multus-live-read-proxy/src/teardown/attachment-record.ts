import { z } from 'zod';
import { type DelInputs, delInputsSchema } from './del-inputs.ts';
import { type PodIdentity, podIdentitySchema } from './pod-identity.ts';
import { decodeRecord } from './record-json.ts';

/**
 * What ADD knew about an attachment (<cniDir>/.sriov-dra/attachments/<containerID>.json), written before
 * any delegate runs: whose it is and the inputs its DEL needs. It lets a daemon that was down while the
 * runtime sent DEL (the shim then reports success and nothing reaches the daemon) tear the attachment
 * down at start, once it has seen that the Pod is really gone.
 */
export interface AttachmentRecord {
  readonly version: 1;
  readonly containerID: string;
  /** The ADD's inputs; DEL runs with them. */
  readonly del: DelInputs;
  /** The Pod ADD read (its UID from the API server). */
  readonly pod: PodIdentity;
  /**
   * A static Pod's mirror may be deleted and recreated under a new UID while the kubelet keeps running it,
   * so its absence from the API server says nothing about the sandbox.
   */
  readonly staticPod: boolean;
}

const attachmentRecordSchema = z.object({
  version: z.literal(1),
  containerID: z.string().min(1),
  del: delInputsSchema,
  pod: podIdentitySchema,
  staticPod: z.boolean(),
});

export function encodeAttachmentRecord(record: AttachmentRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
}

/** The record in `data`, or a TeardownStateError (AttachmentRecordCorrupt) naming `path` and what is wrong. */
export function decodeAttachmentRecord(data: Uint8Array, path: string): AttachmentRecord {
  return decodeRecord(data, path, attachmentRecordSchema, 'AttachmentRecordCorrupt');
}
