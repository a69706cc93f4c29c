import { createHash } from 'node:crypto';
import { type ErrorCode, JsonNumber, type JsonValue, SriovDraError, isHex64, isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { z } from 'zod';
import { type ClaimRecord, MANAGED_BINDING_VERSION, claimRecordSchema } from './checkpoint-record.ts';

/**
 * The checkpoint file: `{"version": 1, "checksum": <hex>, "claims": {<claimUID>: <record>}}`. The checksum
 * is the SHA-256 of the canonical bytes of `{"claims", "version"}`: keys sorted at every level, no
 * whitespace. Canonical bytes make the checksum independent of formatting, so the file can stay indented
 * for whoever has to inspect it on a node.
 */

export const CHECKPOINT_VERSION = 1;

export type ClaimRecords = ReadonlyMap<string, ClaimRecord>;

export function encodeCheckpoint(claims: ClaimRecords): string {
  const sorted = [...claims.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const body = { version: CHECKPOINT_VERSION, claims: Object.fromEntries(sorted) };
  return `${JSON.stringify({ version: body.version, checksum: checksumOf(body), claims: body.claims }, null, 2)}\n`;
}

/**
 * Decodes a checkpoint file's text. Every failure is a typed error naming the file: the driver must not
 * start on state it cannot read, and must not "repair" it either, because the records are the only
 * knowledge of which VFs to restore and which shadows and finalizers to release.
 */
export function decodeCheckpoint(text: string, file: string): ClaimRecords {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw corrupt(file, `is not valid JSON (${parsed.error.message} at offset ${parsed.error.position})`);
  if (!isJsonObject(parsed.value)) throw corrupt(file, 'is not a JSON object');
  const document = toPlain(parsed.value, file) as Record<string, unknown>;

  const version = document['version'];
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw corrupt(file, 'has no positive integer version');
  if (version !== CHECKPOINT_VERSION) {
    throw checkpointError('UnsupportedCheckpointVersion', file, `has version ${version}; this driver reads version ${CHECKPOINT_VERSION}`, {
      remedy: `run the driver release that wrote ${file}, drain the node and let it release every claim, then upgrade; the file was not changed`,
    });
  }
  const checksum = document['checksum'];
  if (typeof checksum !== 'string' || !isHex64(checksum)) throw corrupt(file, 'has no SHA-256 checksum');
  // A checksum over data this build cannot interpret says nothing, so versions are checked first; the
  // checksum then precedes the schema so a damaged file is reported as damage, not as a schema puzzle.
  const actual = checksumOf({ version, claims: document['claims'] });
  if (actual !== checksum) throw corrupt(file, `fails its checksum (recorded ${checksum}, computed ${actual}): it was edited or damaged after it was written`);
  rejectUnknownBindingVersions(document['claims'], file);

  const checked = documentSchema.safeParse(document);
  if (!checked.success) throw corrupt(file, `does not match the checkpoint schema: ${describeIssue(checked.error)}`);
  return new Map(Object.entries(checked.data.claims));
}

const documentSchema = z.strictObject({
  version: z.literal(CHECKPOINT_VERSION),
  checksum: z.string(),
  claims: z.record(z.string(), claimRecordSchema).superRefine((claims, context) => {
    for (const [key, record] of Object.entries(claims)) {
      if (key !== record.claimUID) context.addIssue({ code: 'custom', path: [key, 'claimUID'], message: 'must equal the key the record is filed under' });
    }
  }),
});

function rejectUnknownBindingVersions(claims: unknown, file: string): void {
  if (typeof claims !== 'object' || claims === null) return;
  for (const [claimUID, record] of Object.entries(claims)) {
    const devices = (record as { devices?: unknown } | null)?.devices;
    if (!Array.isArray(devices)) continue;
    for (const device of devices as unknown[]) {
      const binding = (device as { managedBinding?: unknown } | null)?.managedBinding;
      if (binding === undefined || typeof binding !== 'object' || binding === null) continue;
      const bindingVersion = (binding as { bindingVersion?: unknown }).bindingVersion;
      if (typeof bindingVersion === 'number' && bindingVersion !== MANAGED_BINDING_VERSION) {
        throw checkpointError(
          'UnsupportedCheckpointVersion',
          file,
          `claim ${claimUID} holds a managed binding of version ${bindingVersion}; this driver reads version ${MANAGED_BINDING_VERSION}`,
          {
            remedy: `run the driver release that wrote ${file} until the claim is released; the file was not changed`,
          },
        );
      }
    }
  }
}

function checksumOf(body: { version: unknown; claims: unknown }): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/**
 * Compact JSON with object keys sorted by UTF-16 code units at every level. Like the file's own
 * serialization, it leaves out members whose value is undefined, so both sides hash the same members.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).filter(([, item]) => item !== undefined);
    members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Strict-parser output as plain data. Every number the checkpoint holds is a small integer. */
function toPlain(value: JsonValue, file: string): unknown {
  if (value instanceof JsonNumber) {
    const number = Number(value.raw);
    if (!Number.isSafeInteger(number) || String(number) !== value.raw) throw corrupt(file, `holds the number ${value.raw}, which no checkpoint field allows`);
    return number;
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item, file));
  if (isJsonObject(value)) return Object.fromEntries([...value].map(([key, item]) => [key, toPlain(item, file)]));
  return value;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.map(String).join('.')}: ${issue.message}`;
}

function corrupt(file: string, detail: string): SriovDraError {
  return checkpointError('CheckpointCorrupt', file, detail, {
    remedy: `stop the driver and keep ${file} as it is (it was not changed); restore it from a backup, or, once every VF on this node is released, move it aside so the driver starts with an empty checkpoint`,
  });
}

function checkpointError(code: ErrorCode, file: string, detail: string, options: { remedy: string; cause?: unknown }): SriovDraError {
  return new SriovDraError(code, detail, { object: { kind: 'checkpoint file', name: file }, ...options });
}

export function checkpointReadError(file: string, cause: unknown): SriovDraError {
  return checkpointError('CheckpointCorrupt', file, `cannot be read (${cause instanceof Error ? cause.message : String(cause)})`, {
    remedy: `check the permissions and the filesystem of ${file}; nothing was changed`,
    cause,
  });
}
