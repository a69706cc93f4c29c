import { describe, expect, it } from '@jest/globals';
import { isLabelValue } from '@sriov-dra/contract';
import { nodeLabelValue } from './generated-labels.ts';

/** A 253-character node name, the longest a DNS subdomain may be (63-character labels joined by dots). */
const LONGEST = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');

describe('nodeLabelValue', () => {
  it('is the node name where that fits a label value, as upstream writes it', () => {
    expect(nodeLabelValue('worker-1')).toBe('worker-1');
    expect(nodeLabelValue('x'.repeat(63))).toBe('x'.repeat(63));
  });

  it('fits a label value for a 253-character name, keeps its start and tells apart names that share it', () => {
    expect(LONGEST).toHaveLength(253);
    const value = nodeLabelValue(LONGEST);
    expect(isLabelValue(value)).toBe(true);
    expect(value).toMatch(/^a{40}-[0-9a-f]{16}$/);
    expect(nodeLabelValue(`${LONGEST.slice(0, -1)}e`)).not.toBe(value);
    expect(nodeLabelValue('x'.repeat(64))).toMatch(/^x{40}-[0-9a-f]{16}$/);
  });
});
