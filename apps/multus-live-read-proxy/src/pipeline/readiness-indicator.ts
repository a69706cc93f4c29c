import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The configured readiness indicator file does not exist (yet). */
export class ReadinessIndicatorError extends Error {
  override readonly name = 'ReadinessIndicatorError';
  readonly code = 'ReadinessIndicatorMissing';
  readonly path: string;

  constructor(path: string, cause: unknown) {
    super(
      `ReadinessIndicatorMissing: the readiness indicator file ${path} does not exist (${String(cause)}) \u2014 the cluster network writes it once it is ready; check that network's own daemon`,
      { cause },
    );
    this.path = path;
  }
}

/** How ADD waits for the file: Multus polls every second for up to 45 s. */
export interface ReadinessWait {
  readonly pollMs: number;
  readonly timeoutMs: number;
}

export const UPSTREAM_READINESS_WAIT: ReadinessWait = { pollMs: 1_000, timeoutMs: 45_000 };

/** Checks once that the readiness indicator file exists ('' means none is configured). */
export async function checkReadinessIndicator(file: string): Promise<void> {
  if (file === '') return;
  const path = resolve(file);
  try {
    await stat(path);
  } catch (error) {
    throw new ReadinessIndicatorError(path, error);
  }
}

/**
 * ADD waits for the cluster network to declare itself ready, as Multus's CmdAdd does, within the request's
 * own deadline: a Pod networked before its primary network is up would start without it.
 */
export async function waitForReadinessIndicator(file: string, wait: ReadinessWait, signal: AbortSignal): Promise<void> {
  const deadline = performance.now() + wait.timeoutMs;
  for (;;) {
    try {
      await checkReadinessIndicator(file);
      return;
    } catch (error) {
      if (performance.now() + wait.pollMs > deadline) throw error;
      await delay(wait.pollMs, undefined, { signal });
    }
  }
}
