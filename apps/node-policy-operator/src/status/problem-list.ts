/**
 * Longest message listing an object's problems. The condition's message becomes the note of the event
 * reporting it, which holds 1024 characters; at this length both say the same.
 */
export const PROBLEM_LIST_MAX_CHARS = 1024;

/**
 * Every problem of an object in one condition message, so a user fixes them all in one edit: a lone
 * problem as it is, several as `<n> problems: <first>; <second>; …`. Whole problems are listed while
 * they fit; the rest are counted (`… and 3 more`), never silently dropped. A first problem longer than
 * the budget is itself cut.
 */
export function problemList(problems: readonly string[], max = PROBLEM_LIST_MAX_CHARS): string {
  const [first] = problems;
  if (first === undefined) return '';
  if (problems.length === 1) return cut(first, max);
  const head = `${problems.length} problems: `;
  const whole = `${head}${problems.join('; ')}`;
  if (whole.length <= max) return whole;
  // Some are left out, so room is kept for saying how many.
  let text = head;
  let shown = 0;
  for (const problem of problems) {
    const next = `${shown === 0 ? '' : '; '}${problem}`;
    if (text.length + next.length + more(problems.length - shown - 1).length > max) break;
    text += next;
    shown += 1;
  }
  if (shown > 0) return `${text}${more(problems.length - shown)}`;
  const tail = more(problems.length - 1);
  return `${text}${cut(first, max - text.length - tail.length)}${tail}`;
}

function more(count: number): string {
  return `; \u2026 and ${count} more`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}
