/** Where a subcommand writes: stdout and stderr of the process, or a buffer in a test. */
export interface Output {
  write(text: string): unknown;
}

/**
 * Exit statuses of every `sriov-dra` subcommand, as kubectl's: done, or failed — whatever failed (the
 * command line, a file, the API server, the driver's own rules), one line on stderr says what and what to do.
 */
export const EXIT = { ok: 0, failed: 1 } as const;
