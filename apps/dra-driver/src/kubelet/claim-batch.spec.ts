import { describe, expect, it } from '@jest/globals';
import { SriovDraError } from '@sriov-dra/contract';
import { pino } from 'pino';
import { type ClaimOutcome, runClaimBatch } from './claim-batch.ts';
import { KeyedLocks } from './keyed-locks.ts';
import type { ClaimRef } from './claim-preparer.ts';

const logger = pino({ level: 'silent' });
const never = new AbortController().signal;

function options(overrides: { deadlineMs?: number; locks?: KeyedLocks; cancelled?: AbortSignal } = {}) {
  return {
    verb: 'prepare' as const,
    deadlineMs: overrides.deadlineMs ?? 5_000,
    locks: overrides.locks ?? new KeyedLocks(),
    cancelled: overrides.cancelled ?? never,
    logger,
  };
}

const claim = (uid: string, name = `claim-${uid}`): ClaimRef => ({ namespace: 'ai', name, uid });

function errors<T>(outcomes: Map<string, ClaimOutcome<T>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [uid, outcome] of outcomes) out[uid] = outcome.ok ? 'ok' : outcome.error.message;
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('runClaimBatch', () => {
  it('answers every claim, keeping one claim’s failure to itself', async () => {
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const outcomes = await runClaimBatch([claim('u1'), claim('u2')], options(), async (ref, signal) => {
      if (ref.uid === 'u2') {
        setTimeout(failed, 20);
        throw new SriovDraError('MissingNetworkTemplate', 'no template for 0000:3b:02.0');
      }
      // The healthy claim is still running when the other one fails, and goes on to its end.
      await failure;
      await sleep(20);
      return `done ${ref.uid}${signal.aborted ? ' after an abort' : ''}`;
    });
    expect(outcomes.get('u1')).toEqual({ ok: true, value: 'done u1' });
    expect(errors(outcomes)['u2']).toMatch(/^MissingNetworkTemplate: no template for 0000:3b:02.0 — /);
  });

  it.each([
    [{ namespace: '', uid: 'u1', name: 'a' }, 'u1', 'namespace'],
    [{ namespace: 'ai', uid: 'u1', name: '' }, 'u1', 'name'],
    [{ namespace: 'ai', uid: '', name: 'a' }, '', 'uid'],
    [{ namespace: 'ai', name: 'a' }, '', 'uid'],
  ])('refuses %j under key %j without calling the work', async (raw, key, field) => {
    const seen: string[] = [];
    const outcomes = await runClaimBatch([raw, claim('ok')], options(), (ref) => {
      seen.push(ref.uid);
      return Promise.resolve('prepared');
    });
    expect(seen).toEqual(['ok']);
    expect(outcomes.get('ok')).toEqual({ ok: true, value: 'prepared' });
    expect([...outcomes.keys()].sort()).toEqual([key, 'ok'].sort());
    expect(errors(outcomes)[key]).toMatch(new RegExp(`^InvalidClaimReference: ResourceClaim .*: empty or missing ${field} — `));
  });

  it('answers claims that outrun the deadline with a per-claim timeout and aborts their signal', async () => {
    let slowSignal: AbortSignal | undefined;
    const started = Date.now();
    const outcomes = await runClaimBatch([claim('fast'), claim('slow', 'gpu-net')], options({ deadlineMs: 100 }), async (ref, signal) => {
      if (ref.uid === 'fast') return 'fast done';
      slowSignal = signal;
      await sleep(400);
      return 'too late';
    });
    expect(Date.now() - started).toBeLessThan(300);
    expect(outcomes.get('fast')).toEqual({ ok: true, value: 'fast done' });
    expect(errors(outcomes)['slow']).toMatch(/^ClaimCallDeadlineExceeded: ResourceClaim ai\/gpu-net \(uid slow\): prepare did not finish within 100 ms — /);
    expect(slowSignal?.aborted).toBe(true);
  });

  it('keeps the claim locked until timed-out work really ends, and never starts work queued past the deadline', async () => {
    const locks = new KeyedLocks();
    const events: string[] = [];
    const firstCall = runClaimBatch([claim('u1')], options({ deadlineMs: 50, locks }), async () => {
      events.push('first start');
      await sleep(300);
      events.push('first end');
    });
    await sleep(10);
    // Queued behind the first call, and its own deadline passes before the lock frees.
    const secondCall = runClaimBatch([claim('u1')], options({ deadlineMs: 50, locks }), () => {
      events.push('second start');
      return Promise.resolve();
    });
    expect(errors(await firstCall)).toEqual({ u1: expect.stringMatching(/^ClaimCallDeadlineExceeded: /) as unknown });
    expect(errors(await secondCall)).toEqual({ u1: expect.stringMatching(/^ClaimCallDeadlineExceeded: /) as unknown });
    const thirdCall = runClaimBatch([claim('u1')], options({ locks }), () => {
      events.push('third start');
      return Promise.resolve();
    });
    expect(errors(await thirdCall)).toEqual({ u1: 'ok' });
    expect(events).toEqual(['first start', 'first end', 'third start']);
  });

  it('answers a cancelled call with a cancellation error per claim', async () => {
    const kubelet = new AbortController();
    const call = runClaimBatch([claim('u1')], options({ cancelled: kubelet.signal }), async (_ref, signal) => {
      await sleep(300);
      return signal.aborted;
    });
    kubelet.abort();
    expect(errors(await call)['u1']).toMatch(/^ClaimCallCancelled: ResourceClaim ai\/claim-u1 \(uid u1\): the kubelet cancelled the prepare call — /);
  });

  it('runs a claim listed twice once, and refuses one UID listed under two names', async () => {
    let calls = 0;
    const work = (): Promise<string> => {
      calls += 1;
      return Promise.resolve('prepared');
    };
    expect(errors(await runClaimBatch([claim('u1'), claim('u1')], options(), work))).toEqual({ u1: 'ok' });
    expect(calls).toBe(1);
    const conflicting = await runClaimBatch([claim('u2', 'a'), claim('u2', 'b')], options(), work);
    expect(errors(conflicting)['u2']).toMatch(
      /^InvalidClaimReference: ResourceClaim ai\/b \(uid u2\): the call lists this claim UID twice with different names \(ResourceClaim ai\/a \(uid u2\)\)/,
    );
  });

  it('turns a thrown non-Error into an error message for that claim', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the runtime must cope with whatever a preparer throws
    const outcomes = await runClaimBatch([claim('u1')], options(), () => Promise.reject('plain string'));
    expect(errors(outcomes)).toEqual({ u1: 'plain string' });
  });
});
