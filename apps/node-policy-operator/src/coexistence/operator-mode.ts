/**
 * How the operator shares a cluster with the SR-IOV network operator (docs/coexistence.md):
 * - standalone: it is the only SR-IOV operator, so it also keeps each SriovNetwork's source NAD;
 * - alongside-upstream: the upstream operator's network controller keeps them, and this operator generates
 *   only the DRA objects from the policies.
 */
export const OPERATOR_MODES = ['standalone', 'alongside-upstream'] as const;

export type OperatorMode = (typeof OPERATOR_MODES)[number];

export function isOperatorMode(text: string): text is OperatorMode {
  return (OPERATOR_MODES as readonly string[]).includes(text);
}

/**
 * Whether this operator runs the SriovNetwork controller: renders the source NADs, holds the NAD-cleanup
 * finalizer and the last-namespace annotation on SriovNetworks, and reports their Ready condition. Upstream's
 * network controller writes every one of those under the same names, so alongside it this operator writes
 * none of them — not even to undo what it wrote in standalone mode: its NADs carry upstream's owner marker
 * and its finalizer is upstream's, so upstream's controller takes them over as its own, and removing the
 * finalizer would let a deleted SriovNetwork leave its NAD behind in another namespace. The node-policy
 * controller only reads SriovNetworks and NADs in both modes; Namespaces only the SriovNetwork controller
 * watches, so alongside upstream the operator opens no Namespace watch and the chart grants none.
 */
export function keepsSourceNads(mode: OperatorMode): boolean {
  return mode === 'standalone';
}
