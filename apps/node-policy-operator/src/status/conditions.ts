/** A metav1.Condition as the operator's CRDs store it (status.conditions, list-map keyed by type). */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration: number;
  readonly lastTransitionTime: string;
}

export type ConditionChange = 'added' | 'changed' | 'unchanged';

/**
 * The condition to write in place of what the object carries, as upstream's status patcher decides it:
 * lastTransitionTime moves only when the status does (a new reason or message keeps it), and a condition
 * equal in status, reason, message and observedGeneration is no change at all, so the write is skipped.
 * Conditions of other types are not looked at: another controller may own them.
 */
export function nextCondition(
  existing: readonly Condition[] | undefined,
  desired: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): { readonly condition: Condition; readonly change: ConditionChange } {
  const old = existing?.find((condition) => condition.type === desired.type);
  const lastTransitionTime = old !== undefined && old.status === desired.status ? old.lastTransitionTime : rfc3339Seconds(now);
  const condition = { ...desired, lastTransitionTime };
  if (old === undefined) return { condition, change: 'added' };
  const same =
    old.status === desired.status && old.reason === desired.reason && old.message === desired.message && old.observedGeneration === desired.observedGeneration;
  return { condition, change: same ? 'unchanged' : 'changed' };
}

/** metav1.Time serializes with second precision (RFC 3339, UTC); finer digits would fail its decoder's round trip. */
function rfc3339Seconds(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** Messages are bounded by the CRD (maxLength 32768); a longer one would make the whole status write fail. */
export const MAX_CONDITION_MESSAGE_LENGTH = 32_768;

export function boundedMessage(message: string): string {
  if (message.length <= MAX_CONDITION_MESSAGE_LENGTH) return message;
  return `${message.slice(0, MAX_CONDITION_MESSAGE_LENGTH - 1)}…`;
}
