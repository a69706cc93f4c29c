/**
 * Why discovery could not use a sysfs entry. These codes are local to discovery: a device with such an
 * error is reported as skipped and never reaches the contract, so they are not part of the shared catalog.
 */

const catalog = {
  SysfsEntryMissing: 'the kernel normally provides this entry; check that the device driver finished probing',
  SysfsDanglingLink: 'the link points at a device that no longer exists; it was probably removed while being read, and the next scan retries',
  SysfsUnreadable: 'check that the driver runs privileged with the host /sys mounted read-only at the configured sysfs root',
  MalformedSysfsValue: 'the entry does not hold the kernel format; check the kernel and driver versions of this device',
} as const;

export type SysfsErrorCode = keyof typeof catalog;

/** A failure to use one sysfs entry, naming the entry's full path. */
export class SysfsError extends Error {
  override readonly name = 'SysfsError';
  readonly code: SysfsErrorCode;
  /** Absolute path of the entry, under the configured sysfs root. */
  readonly path: string;
  readonly detail: string;
  readonly remedy: string;

  constructor(code: SysfsErrorCode, path: string, detail: string, options: { readonly cause?: unknown } = {}) {
    super(`${code}: ${path}: ${detail} \u2014 ${catalog[code]}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = path;
    this.detail = detail;
    this.remedy = catalog[code];
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, path: this.path, detail: this.detail, remedy: this.remedy };
  }
}

export type SysfsResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: SysfsError };

export function found<T>(value: T): SysfsResult<T> {
  return { ok: true, value };
}

export function sysfsFailure<T = never>(code: SysfsErrorCode, path: string, detail: string, cause?: unknown): SysfsResult<T> {
  return { ok: false, error: new SysfsError(code, path, detail, cause === undefined ? {} : { cause }) };
}
