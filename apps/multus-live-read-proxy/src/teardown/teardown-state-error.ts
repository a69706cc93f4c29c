/**
 * A failure of the daemon's own teardown state beside the delegate cache: a pending teardown record or an
 * attachment record that cannot be read, decoded or written. A record that does not decode is reported
 * and left in place with the delegate cache it refers to: they are what a teardown still needs, and
 * deleting either would turn a delayed DEL into an IPAM leak.
 */
export type TeardownStateCode = 'TeardownRecordCorrupt' | 'AttachmentRecordCorrupt' | 'TeardownStateIoFailed' | 'TeardownPending';

const REMEDIES: Readonly<Record<TeardownStateCode, string>> = {
  TeardownRecordCorrupt:
    'the record and the delegate cache were left untouched and no DEL runs for this container; inspect the file, and remove it once the delegates are released (by hand, or by the next DEL from the runtime)',
  AttachmentRecordCorrupt:
    'the record and the delegate cache were left untouched, so this container is never torn down without the runtime asking; inspect the file and remove it (the runtime’s DEL still works from the delegate cache)',
  TeardownPending:
    'the daemon retries the earlier teardown with backoff (see its log for this container ID and sriov_dra_multus_pending_teardowns); the runtime retries the ADD, normally with a new sandbox',
  TeardownStateIoFailed: 'check that the cache directory (cniDir) is on a writable, mounted host path with free space',
};

export class TeardownStateError extends Error {
  override readonly name = 'TeardownStateError';
  readonly code: TeardownStateCode;
  /** The record file the failure is about. */
  readonly path: string;

  constructor(code: TeardownStateCode, path: string, detail: string, cause?: unknown) {
    super(`${code}: ${path}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.path = path;
  }
}

export function isTeardownStateError(error: unknown, code?: TeardownStateCode): error is TeardownStateError {
  return error instanceof TeardownStateError && (code === undefined || error.code === code);
}
