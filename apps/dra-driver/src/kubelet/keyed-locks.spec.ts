import { describe, expect, it } from '@jest/globals';
import { KeyedLocks } from './keyed-locks.ts';

/** A promise the test settles by hand. */
function gate(): { promise: Promise<void>; open: () => void; fail: (error: Error) => void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('KeyedLocks', () => {
  it('runs work for one claim UID one at a time, in arrival order', async () => {
    const locks = new KeyedLocks();
    const events: string[] = [];
    const first = gate();
    const a = locks.run('uid-1', async () => {
      events.push('a start');
      await first.promise;
      events.push('a end');
    });
    const b = locks.run('uid-1', async () => {
      events.push('b start');
      await Promise.resolve();
      events.push('b end');
    });
    await tick();
    expect(events).toEqual(['a start']);
    first.open();
    await Promise.all([a, b]);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('runs different claim UIDs concurrently', async () => {
    const locks = new KeyedLocks();
    const events: string[] = [];
    const first = gate();
    const a = locks.run('uid-1', async () => {
      events.push('a start');
      await first.promise;
      events.push('a end');
    });
    const b = locks.run('uid-2', async () => {
      events.push('b start');
      await Promise.resolve();
      events.push('b end');
    });
    await b;
    expect(events).toEqual(['a start', 'b start', 'b end']);
    first.open();
    await a;
  });

  it('passes a rejection to its caller and still releases the claim', async () => {
    const locks = new KeyedLocks();
    const first = gate();
    const a = locks.run('uid-1', () => first.promise);
    const b = locks.run('uid-1', () => Promise.resolve('second ran'));
    first.fail(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    await expect(b).resolves.toBe('second ran');
  });

  it('forgets a claim once its work settled', async () => {
    const locks = new KeyedLocks();
    const first = gate();
    const a = locks.run('uid-1', () => first.promise);
    expect(locks.busy).toEqual(['uid-1']);
    first.open();
    await a;
    await tick();
    expect(locks.busy).toEqual([]);
  });

  it('tells work whether it waited for an earlier holder of its key', async () => {
    const locks = new KeyedLocks();
    const first = gate();
    const a = locks.run('uid-1', async (queued) => {
      await first.promise;
      return queued;
    });
    const b = locks.run('uid-1', (queued) => Promise.resolve(queued));
    const other = locks.run('uid-2', (queued) => Promise.resolve(queued));
    first.open();
    expect(await Promise.all([a, b, other])).toEqual([false, true, false]);
    await tick();
    expect(await locks.run('uid-1', (queued) => Promise.resolve(queued))).toBe(false);
  });
});
