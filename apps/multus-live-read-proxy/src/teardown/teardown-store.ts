import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { removeFileDurably, writeFileAtomic } from '@sriov-dra/durable-files';
import { delegateCachePath } from '../cache/delegate-cache.ts';
import { type AttachmentRecord, decodeAttachmentRecord, encodeAttachmentRecord } from './attachment-record.ts';
import { type TeardownRecord, decodeTeardownRecord, encodeTeardownRecord } from './teardown-record.ts';
import { type TeardownStateCode, TeardownStateError } from './teardown-state-error.ts';

/**
 * Where the daemon keeps its teardown state: beside the delegate cache, on the same persistent host path,
 * under a directory no container ID can name (an ID starts with a letter or digit) and upstream Multus
 * never reads (it reads only <cniDir>/<containerID> and <cniDir>/results/).
 */
export const TEARDOWN_STATE_DIRECTORY = '.sriov-dra';

const RECORD_SUFFIX = '.json';

type Kind = 'teardowns' | 'attachments';

export function teardownStateDirectories(cniDir: string): Record<Kind, string> {
  return { teardowns: join(cniDir, TEARDOWN_STATE_DIRECTORY, 'teardowns'), attachments: join(cniDir, TEARDOWN_STATE_DIRECTORY, 'attachments') };
}

function recordPath(cniDir: string, kind: Kind, containerID: string): string {
  // Validates the ID as the delegate cache does, so a record and its cache always name the same container.
  delegateCachePath(cniDir, containerID);
  return join(teardownStateDirectories(cniDir)[kind], `${containerID}${RECORD_SUFFIX}`);
}

export function teardownRecordPath(cniDir: string, containerID: string): string {
  return recordPath(cniDir, 'teardowns', containerID);
}

export function attachmentRecordPath(cniDir: string, containerID: string): string {
  return recordPath(cniDir, 'attachments', containerID);
}

const ioFailed = (path: string, what: string, error: unknown): TeardownStateError =>
  new TeardownStateError('TeardownStateIoFailed', path, `could not ${what}: ${(error as Error).message}`, error);

async function read<T extends { readonly containerID: string }>(
  path: string,
  decode: (data: Buffer, path: string) => T,
  containerID: string,
  code: TeardownStateCode,
): Promise<T | undefined> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioFailed(path, 'read the record', error);
  }
  const record = decode(data, path);
  if (record.containerID !== containerID) throw new TeardownStateError(code, path, `names container ${JSON.stringify(record.containerID)}, not its file's`);
  return record;
}

async function write(path: string, data: Buffer): Promise<void> {
  try {
    await writeFileAtomic(path, data, { createDirectoryMode: 0o700 });
  } catch (error) {
    throw ioFailed(path, 'write the record', error);
  }
}

async function remove(path: string): Promise<void> {
  try {
    await removeFileDurably(path);
  } catch (error) {
    throw ioFailed(path, 'remove the record', error);
  }
}

async function list(directory: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioFailed(directory, 'list the records', error);
  }
  return names
    .filter((name) => name.endsWith(RECORD_SUFFIX) && !name.startsWith('.'))
    .map((name) => name.slice(0, -RECORD_SUFFIX.length))
    .sort();
}

/** The pending teardown of a container, undefined when there is none; corrupt → TeardownRecordCorrupt. */
export function loadTeardownRecord(cniDir: string, containerID: string): Promise<TeardownRecord | undefined> {
  return read(teardownRecordPath(cniDir, containerID), decodeTeardownRecord, containerID, 'TeardownRecordCorrupt');
}

export function saveTeardownRecord(cniDir: string, record: TeardownRecord): Promise<void> {
  return write(teardownRecordPath(cniDir, record.containerID), encodeTeardownRecord(record));
}

export function removeTeardownRecord(cniDir: string, containerID: string): Promise<void> {
  return remove(teardownRecordPath(cniDir, containerID));
}

/** Container IDs with a pending teardown record, in name order. */
export function listTeardownRecords(cniDir: string): Promise<string[]> {
  return list(teardownStateDirectories(cniDir).teardowns);
}

export function loadAttachmentRecord(cniDir: string, containerID: string): Promise<AttachmentRecord | undefined> {
  return read(attachmentRecordPath(cniDir, containerID), decodeAttachmentRecord, containerID, 'AttachmentRecordCorrupt');
}

export function saveAttachmentRecord(cniDir: string, record: AttachmentRecord): Promise<void> {
  return write(attachmentRecordPath(cniDir, record.containerID), encodeAttachmentRecord(record));
}

export function removeAttachmentRecord(cniDir: string, containerID: string): Promise<void> {
  return remove(attachmentRecordPath(cniDir, containerID));
}

export function listAttachmentRecords(cniDir: string): Promise<string[]> {
  return list(teardownStateDirectories(cniDir).attachments);
}
