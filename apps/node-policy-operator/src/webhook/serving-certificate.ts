import { readFileSync, statSync } from 'node:fs';

export interface ServingCertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface ServingCertificate {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export type ServingCertificateCode = 'UnreadableServingCertificate' | 'InvalidServingCertificate';

/** A serving certificate that cannot be read or used; the message names the flag, the file and what to do. */
export class ServingCertificateError extends Error {
  override readonly name = 'ServingCertificateError';
  readonly code: ServingCertificateCode;

  constructor(code: ServingCertificateCode, subject: string, detail: string, remedy: string, cause: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${remedy}`, { cause });
    this.code = code;
  }
}

export function readServingCertificate(files: ServingCertificateFiles): ServingCertificate {
  const read = (path: string, what: string, flag: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ServingCertificateError(
        'UnreadableServingCertificate',
        `Flag ${flag}`,
        `cannot read the webhook's TLS ${what} ${path}: ${(error as Error).message}`,
        `mount the serving certificate Secret there or point ${flag} at the file`,
        error,
      );
    }
  };
  return { cert: read(files.certFile, 'certificate', '--tls-cert-file'), key: read(files.keyFile, 'private key', '--tls-private-key-file') };
}

/** A certificate and key that were read but cannot serve TLS together (not PEM, or not a pair). */
export function invalidServingCertificate(files: ServingCertificateFiles, error: unknown): ServingCertificateError {
  return new ServingCertificateError(
    'InvalidServingCertificate',
    `Flag --tls-cert-file ${files.certFile}, --tls-private-key-file ${files.keyFile}`,
    `cannot serve TLS with them: ${error instanceof Error ? error.message : String(error)}`,
    'give a PEM certificate (chain allowed) and its PEM private key',
    error,
  );
}

/** Modification time and inode of both files: a Secret volume update replaces them (new inodes). */
function stamp(files: ServingCertificateFiles): string {
  const one = (path: string): string => {
    try {
      const stats = statSync(path);
      return `${stats.ino}:${stats.mtimeMs}`;
    } catch {
      return 'missing';
    }
  };
  return `${one(files.certFile)}|${one(files.keyFile)}`;
}

/**
 * Calls `apply` with the files' contents whenever they change, polling every `intervalMs`: the API server
 * refuses every policy write once the served certificate expires, so a rotated certificate (cert-manager,
 * a renewed Secret) must be picked up without a restart. A pair that cannot be read or applied (the key
 * and certificate caught mid-rotation, say) is retried on the next poll; the previous pair stays in use.
 * Returns the function that stops polling.
 */
export function watchServingCertificate(
  files: ServingCertificateFiles,
  intervalMs: number,
  apply: (certificate: ServingCertificate) => void,
  onError: (error: unknown) => void,
): () => void {
  let applied = stamp(files);
  const timer = setInterval(() => {
    const current = stamp(files);
    if (current === applied) return;
    try {
      apply(readServingCertificate(files));
      applied = current;
    } catch (error) {
      onError(error);
    }
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
