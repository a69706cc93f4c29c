import { describe, expect, it } from '@jest/globals';
import { CniInvocationError } from './cni-error.ts';
import { type NotLaunched, launchWhileTextFileBusy } from './text-file-busy.ts';

const subject = { network: 'rail-a', pluginType: 'sriov' };
const busy = (attempt: number): NotLaunched => ({
  kind: 'not-launched',
  error: new CniInvocationError('ChrootLaunchFailed', subject, `attempt ${String(attempt)}: Text file busy`),
  textFileBusy: true,
});
const exited = { kind: 'exited' as const, exit: 'ran' };

/** Attempts that follow `script` (busy, not busy, or exited) and record themselves, and pauses that record too. */
function scripted(script: readonly ('busy' | 'failed' | 'exited')[]) {
  const log: string[] = [];
  let attempts = 0;
  return {
    log,
    attempt: () => {
      attempts += 1;
      log.push(`attempt ${String(attempts)}`);
      const step = script[attempts - 1] ?? 'busy';
      if (step === 'exited') return Promise.resolve(exited);
      if (step === 'failed') return Promise.resolve({ ...busy(attempts), textFileBusy: false });
      return Promise.resolve(busy(attempts));
    },
    pause: (ms: number) => {
      log.push(`pause ${String(ms)}`);
      return Promise.resolve();
    },
  };
}

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => 'no error',
    (error: unknown) => error,
  );

describe('launchWhileTextFileBusy', () => {
  it('gives a file that stays busy five more attempts a second apart, then fails with the last attempt’s error', async () => {
    const run = scripted([]);
    const error = await failure(launchWhileTextFileBusy(run.attempt, run.pause));
    expect((error as Error).message).toContain('attempt 6: Text file busy');
    expect(run.log).toEqual([
      'attempt 1',
      'pause 1000',
      'attempt 2',
      'pause 1000',
      'attempt 3',
      'pause 1000',
      'attempt 4',
      'pause 1000',
      'attempt 5',
      'pause 1000',
      'attempt 6',
    ]);
  });

  it('returns the first attempt that ran, however many busy ones came before', async () => {
    const run = scripted(['busy', 'busy', 'exited']);
    expect(await launchWhileTextFileBusy(run.attempt, run.pause)).toBe(exited);
    expect(run.log).toEqual(['attempt 1', 'pause 1000', 'attempt 2', 'pause 1000', 'attempt 3']);
  });

  it('fails at once on any other launch failure', async () => {
    const run = scripted(['failed']);
    const error = await failure(launchWhileTextFileBusy(run.attempt, run.pause));
    expect((error as Error).message).toContain('attempt 1: Text file busy');
    expect(run.log).toEqual(['attempt 1']);
  });

  it('ends with a pause’s error (the deadline) and tries nothing more', async () => {
    const run = scripted([]);
    const deadline = new Error('deadline');
    const error = await failure(
      launchWhileTextFileBusy(run.attempt, (ms) => {
        run.log.push(`pause ${String(ms)}`);
        return Promise.reject(deadline);
      }),
    );
    expect(error).toBe(deadline);
    expect(run.log).toEqual(['attempt 1', 'pause 1000']);
  });
});
