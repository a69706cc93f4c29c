import { describe, expect, it } from '@jest/globals';
import { PROBLEM_LIST_MAX_CHARS, problemList } from './problem-list.ts';

describe('problemList', () => {
  it('gives a lone problem as it is, and nothing for none', () => {
    expect(problemList(['spec.vlan: bad'])).toBe('spec.vlan: bad');
    expect(problemList([])).toBe('');
  });

  it('lists every problem that fits, counted', () => {
    expect(problemList(['a: x', 'b: y', 'c: z'])).toBe('3 problems: a: x; b: y; c: z');
  });

  it('lists whole problems while they fit with the count of the rest, and says how many more there are', () => {
    // "5 problems: " is 12 characters, each problem 10, "; " 2, "; … and 3 more" 14.
    const problems = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd', 'eeeeeeeeee'];
    expect(problemList(problems, 12 + 10 + 2 + 10 + 14)).toBe('5 problems: aaaaaaaaaa; bbbbbbbbbb; \u2026 and 3 more');
    expect(problemList(problems, 12 + 10 + 2 + 10 + 14 - 1)).toBe('5 problems: aaaaaaaaaa; \u2026 and 4 more');
    expect(problemList(problems, 12 + 5 * 10 + 4 * 2)).toBe('5 problems: aaaaaaaaaa; bbbbbbbbbb; cccccccccc; dddddddddd; eeeeeeeeee');
  });

  it('cuts a first problem too long for the budget, still counting the rest', () => {
    // 40 = "2 problems: " (12) + the cut problem (14) + "; … and 1 more" (14).
    expect(problemList(['x'.repeat(100), 'y'], 40)).toBe(`2 problems: ${'x'.repeat(13)}\u2026; \u2026 and 1 more`);
    expect(problemList(['x'.repeat(2_000)])).toBe(`${'x'.repeat(PROBLEM_LIST_MAX_CHARS - 1)}\u2026`);
  });

  it('never exceeds the event note budget', () => {
    const problems = Array.from({ length: 200 }, (_unused, index) => `spec.dra.attributes["example.com/a${index}"]: InvalidDRAAttribute: ${'w'.repeat(index)}`);
    const message = problemList(problems);
    expect(message.length).toBeLessThanOrEqual(PROBLEM_LIST_MAX_CHARS);
    expect(message).toMatch(/^200 problems: spec\.dra\.attributes\["example\.com\/a0"\]: .*; … and \d+ more$/);
  });
});
