import { type Result, type nodeSelectorSchema, ok } from '@sriov-dra/contract';
import type { z } from 'zod';
import { matchesRequirement } from './selector-requirement.ts';

export type NodeSelector = z.infer<typeof nodeSelectorSchema>;

/**
 * Whether a policy's node selector selects the node with `labels`, with Kubernetes NodeSelector
 * semantics: terms are ORed, the expressions of one term are ANDed, and a term without expressions
 * (like a selector without terms) selects no node. Only an absent selector selects every node. The
 * upstream driver treats an empty term or term list as match-all; following Kubernetes here means a
 * policy never applies to more nodes than its selector reads as.
 */
export function matchesNodeSelector(selector: NodeSelector | null | undefined, labels: Readonly<Record<string, string>>): Result<boolean> {
  if (selector === null || selector === undefined) return ok(true);
  let selected = false;
  // Every term is evaluated, so a malformed requirement is reported even behind a matching term.
  for (const term of selector.nodeSelectorTerms) {
    const expressions = term.matchExpressions ?? [];
    let termMatches = expressions.length > 0;
    for (const requirement of expressions) {
      const matched = matchesRequirement(requirement, labels);
      if (!matched.ok) return matched;
      termMatches &&= matched.value;
    }
    selected ||= termMatches;
  }
  return ok(selected);
}
