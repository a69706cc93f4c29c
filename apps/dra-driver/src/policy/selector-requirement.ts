import { type Result, fail, ok } from '@sriov-dra/contract';

/** One requirement of a label or node selector, with the operators Kubernetes defines for node selectors. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values?: readonly string[] | undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Gt/Lt operands and label values are read as Go's strconv.ParseInt(value, 10, 64) reads them. */
function parseInt64(value: string | undefined): bigint | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed < INT64_MIN || parsed > INT64_MAX ? undefined : parsed;
}

/**
 * Whether `labels` satisfy the requirement. A requirement Kubernetes would refuse to build (In without
 * values, Exists with values, Gt with anything but one integer) is an error, not a non-match: the caller
 * must not mistake a broken selector for one that merely excludes this object.
 */
export function matchesRequirement(requirement: SelectorRequirement, labels: Readonly<Record<string, string>>): Result<boolean> {
  const { key, operator } = requirement;
  const values = requirement.values ?? [];
  const present = Object.hasOwn(labels, key);
  const value = present ? labels[key] : undefined;
  switch (operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) return fail('InvalidSriovResourcePolicy', `requirement ${operator} on ${key} has no values`);
      const listed = value !== undefined && values.includes(value);
      return ok(operator === 'In' ? listed : !listed);
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) return fail('InvalidSriovResourcePolicy', `requirement ${operator} on ${key} must not have values`);
      return ok(operator === 'Exists' ? present : !present);
    case 'Gt':
    case 'Lt': {
      const operand = values.length === 1 ? parseInt64(values[0]) : undefined;
      if (operand === undefined) return fail('InvalidSriovResourcePolicy', `requirement ${operator} on ${key} needs exactly one integer value`);
      // A missing or non-integer label satisfies neither comparison, as in Kubernetes.
      const label = parseInt64(value);
      if (label === undefined) return ok(false);
      return ok(operator === 'Gt' ? label > operand : label < operand);
    }
  }
}
