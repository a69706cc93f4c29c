/**
 * A failure of the Multus delegate cache (<cniDir>/<containerID>). A corrupt file is reported and left
 * in place: it is the only record of what DEL must undo, and an operator may still recover it by hand.
 */
export type DelegateCacheCode = 'InvalidContainerID' | 'DelegateNotEncodable' | 'DelegateCacheCorrupt' | 'DelegateCacheIoFailed';

const REMEDIES: Readonly<Record<DelegateCacheCode, string>> = {
  InvalidContainerID: 'the runtime must pass a CNI_CONTAINERID of the form [a-zA-Z0-9][a-zA-Z0-9_.-]*; check the container runtime',
  DelegateNotEncodable: 'the delegate configuration is not a JSON object; fix the NetworkAttachmentDefinition or configuration file it came from',
  DelegateCacheCorrupt:
    'the file was left untouched; inspect it, and if the sandbox is gone release its IPAM allocations by hand before removing the file (DEL cannot run without it)',
  DelegateCacheIoFailed: 'check that the cache directory is on a writable, mounted host path with free space; the runtime retries the request',
};

export class DelegateCacheError extends Error {
  override readonly name = 'DelegateCacheError';
  readonly code: DelegateCacheCode;
  /** The cache file (or container ID) the failure is about. */
  readonly subject: string;

  constructor(code: DelegateCacheCode, subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
  }
}

export function isDelegateCacheError(error: unknown, code?: DelegateCacheCode): error is DelegateCacheError {
  return error instanceof DelegateCacheError && (code === undefined || error.code === code);
}
