import { type Result, type labelSelectorSchema, ok } from '@sriov-dra/contract';
import type { z } from 'zod';
import { matchesRequirement } from './selector-requirement.ts';

export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/**
 * Whether `labels` satisfy a metav1.LabelSelector: matchLabels and matchExpressions all ANDed, and an
 * empty selector selects everything. A malformed requirement is an error for the whole selector.
 */
export function matchesLabelSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): Result<boolean> {
  let selected = true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!Object.hasOwn(labels, key) || labels[key] !== value) selected = false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const matched = matchesRequirement(requirement, labels);
    if (!matched.ok) return matched;
    selected &&= matched.value;
  }
  return ok(selected);
}
