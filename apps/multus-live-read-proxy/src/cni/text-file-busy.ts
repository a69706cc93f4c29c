import type { CniInvocationError } from './cni-error.ts';

/**
 * A plugin file open for writing cannot be executed (ETXTBSY): an installer is replacing it. As libcni and
 * upstream's chroot exec do, the call waits a second and tries again, five times at most. Nothing of the
 * plugin ran, so trying again repeats nothing.
 */
export const TEXT_FILE_BUSY_RETRIES = 5;
export const TEXT_FILE_BUSY_WAIT_MS = 1000;

/** The plugin never ran; a busy plugin file may be tried again. */
export interface NotLaunched {
  readonly kind: 'not-launched';
  readonly error: CniInvocationError;
  readonly textFileBusy: boolean;
}

const notLaunched = (outcome: { readonly kind: string }): outcome is NotLaunched => outcome.kind === 'not-launched';

/**
 * Launches through `attempt` until the plugin runs, pausing between tries while its file is busy. A pause
 * that throws (the call's deadline) ends the call with its error; any other launch failure ends it at once.
 */
export async function launchWhileTextFileBusy<T extends { readonly kind: 'exited' }>(
  attempt: () => Promise<T | NotLaunched>,
  pause: (ms: number) => Promise<void>,
): Promise<T> {
  for (let retries = 0; ; retries++) {
    const outcome = await attempt();
    if (!notLaunched(outcome)) return outcome;
    if (!outcome.textFileBusy || retries === TEXT_FILE_BUSY_RETRIES) throw outcome.error;
    await pause(TEXT_FILE_BUSY_WAIT_MS);
  }
}
