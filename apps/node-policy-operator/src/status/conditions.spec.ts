import { describe, expect, it } from '@jest/globals';
import { MAX_CONDITION_MESSAGE_LENGTH, boundedMessage, nextCondition } from './conditions.ts';

const EARLIER = '2026-01-02T03:04:05Z';
const NOW = new Date('2026-11-30T12:00:00.987Z');
const ready = { type: 'Ready', status: 'True', reason: 'NetworkReady', message: 'ok', observedGeneration: 3 } as const;

describe('nextCondition', () => {
  it('adds a missing condition stamped now, to the second', () => {
    expect(nextCondition(undefined, ready, NOW)).toEqual({ change: 'added', condition: { ...ready, lastTransitionTime: '2026-11-30T12:00:00Z' } });
  });

  it('is no change when status, reason, message and observedGeneration match, whatever other conditions say', () => {
    const other = { type: 'Degraded', status: 'True', reason: 'X', message: 'y', observedGeneration: 1, lastTransitionTime: EARLIER } as const;
    expect(nextCondition([other, { ...ready, lastTransitionTime: EARLIER }], ready, NOW)).toEqual({
      change: 'unchanged',
      condition: { ...ready, lastTransitionTime: EARLIER },
    });
  });

  it.each([
    ['reason', { reason: 'Other' }],
    ['message', { message: 'other' }],
    ['observedGeneration', { observedGeneration: 4 }],
  ])('keeps lastTransitionTime when only the %s changes', (_field, change) => {
    expect(nextCondition([{ ...ready, lastTransitionTime: EARLIER }], { ...ready, ...change }, NOW)).toEqual({
      change: 'changed',
      condition: { ...ready, ...change, lastTransitionTime: EARLIER },
    });
  });

  it('moves lastTransitionTime when the status changes', () => {
    expect(nextCondition([{ ...ready, lastTransitionTime: EARLIER }], { ...ready, status: 'False' }, NOW).condition.lastTransitionTime).toBe(
      '2026-11-30T12:00:00Z',
    );
  });
});

describe('boundedMessage', () => {
  it('keeps a message at the CRD limit and cuts a longer one to it', () => {
    const limit = 'a'.repeat(MAX_CONDITION_MESSAGE_LENGTH);
    expect(boundedMessage(limit)).toBe(limit);
    const cut = boundedMessage(`${limit}b`);
    expect(cut).toHaveLength(32_768);
    expect(cut.endsWith('…')).toBe(true);
  });
});
