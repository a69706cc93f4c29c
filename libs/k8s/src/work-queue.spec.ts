import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { WorkQueue } from './work-queue.ts';

describe('WorkQueue', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('hands out each waiting key once, in order', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('never gives a key to two workers; a key added while processing comes back after done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    queue.done(first ?? '');
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    expect(queue.length).toBe(0);
  });

  it('wakes a waiting worker', async () => {
    const queue = new WorkQueue();
    const pending = queue.get();
    queue.add('late');
    expect(await pending).toBe('late');
  });

  it('backs off failing keys exponentially and forgets on success', () => {
    const queue = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 1_000 });
    queue.addRateLimited('k');
    expect(queue.length).toBe(0);
    jest.advanceTimersByTime(10);
    expect(queue.length).toBe(1);
    void queue.get();
    queue.done('k');
    queue.addRateLimited('k');
    jest.advanceTimersByTime(19);
    expect(queue.length).toBe(0);
    jest.advanceTimersByTime(1);
    expect(queue.length).toBe(1);
    expect(queue.failuresOf('k')).toBe(2);
    queue.forget('k');
    expect(queue.failuresOf('k')).toBe(0);
  });

  it('caps the per-key delay', () => {
    const queue = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 50 });
    for (let i = 0; i < 10; i += 1) {
      queue.addRateLimited('x');
      jest.advanceTimersByTime(50);
      expect(queue.length).toBe(1);
      void queue.get();
      queue.done('x');
    }
  });

  it('releases waiting workers and ignores new keys after shutDown', async () => {
    const queue = new WorkQueue();
    const pending = queue.get();
    queue.shutDown();
    expect(await pending).toBeUndefined();
    queue.add('x');
    expect(await queue.get()).toBeUndefined();
  });
});
