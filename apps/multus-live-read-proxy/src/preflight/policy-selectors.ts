import type { SriovResourcePolicySpec } from '@sriov-dra/contract';

/**
 * Which SriovResourcePolicy applies to a node and which DeviceAttributes objects a config selects, read
 * the way the driver reads them (Kubernetes NodeSelector and LabelSelector semantics), so preflight checks
 * the templates the node's devices can really resolve to. A malformed requirement, which the driver turns
 * into withheld devices, counts as a match here: preflight would rather check one template too many.
 */

type NodeSelector = NonNullable<SriovResourcePolicySpec['nodeSelector']>;
type LabelSelector = NonNullable<NonNullable<SriovResourcePolicySpec['configs']>[number]['deviceAttributesSelector']>;

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

function integer(text: string | undefined): bigint | undefined {
  return text !== undefined && /^-?\d+$/.test(text) ? BigInt(text) : undefined;
}

function matches(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = present ? labels[requirement.key] : undefined;
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return values.length === 0 || (value !== undefined && values.includes(value));
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    case 'Gt':
    case 'Lt': {
      const actual = integer(value);
      const bound = integer(values[0]);
      if (bound === undefined || values.length !== 1) return true;
      return actual !== undefined && (requirement.operator === 'Gt' ? actual > bound : actual < bound);
    }
    default:
      return true;
  }
}

/** Terms ORed, a term's expressions ANDed, an empty term selecting nothing; no selector selects every node. */
export function nodeSelected(selector: NodeSelector | null | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (selector === null || selector === undefined) return true;
  return selector.nodeSelectorTerms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    return expressions.length > 0 && expressions.every((requirement) => matches(requirement, labels));
  });
}

/** matchLabels and matchExpressions ANDed; an empty selector selects every object. */
export function labelsSelected(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value && Object.hasOwn(labels, key));
  return byLabel && (selector.matchExpressions ?? []).every((requirement) => matches(requirement, labels));
}
