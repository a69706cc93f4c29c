/** Where a subcommand writes: stdout and stderr of the process, or a buffer in a test. */
export interface Output {
  write(text: string): unknown;
}

/**
 * Exit statuses of every `sriov-dra` subcommand: done; refused by the driver's own rules (the typed
 * error, its code and remedy on stderr); the command line or an input file is unusable as given.
 */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;
