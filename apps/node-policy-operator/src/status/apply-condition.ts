import { type EventRecorder, type KubeClient, type KubeObject, type ResourceType, contentTypes } from '@sriov-dra/k8s';
import { type Condition, type ConditionChange, boundedMessage, nextCondition } from './conditions.ts';

/** The field manager of every status write of the operator: one owner per condition type it sets. */
export const STATUS_FIELD_MANAGER = 'sriov-dra-node-policy-operator';

export interface ConditionWrite {
  /** withheld: the condition would change, but `mayWrite` said no and nothing was written. */
  readonly change: ConditionChange | 'withheld';
  readonly condition: Condition;
}

function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/**
 * Server-side applies one condition to the object's status subresource, carrying only that condition: the
 * CRD's list-map on `type` lets other managers own other conditions side by side. Forced, because this
 * manager is the only writer of its condition type. An unchanged condition makes no request.
 */
export async function applyCondition(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject & { status?: { conditions?: readonly Condition[] } },
  desired: Omit<Condition, 'lastTransitionTime'>,
  options: {
    readonly now?: Date;
    readonly signal?: AbortSignal;
    readonly recorder?: EventRecorder;
    /** Asked only when the condition would change, right before the request. */
    readonly mayWrite?: () => Promise<boolean>;
  } = {},
): Promise<ConditionWrite> {
  const { condition, change } = nextCondition(object.status?.conditions, { ...desired, message: boundedMessage(desired.message) }, options.now ?? new Date());
  if (change === 'unchanged') return { change, condition };
  if (options.mayWrite !== undefined && !(await options.mayWrite())) return { change: 'withheld', condition };
  const { name, namespace } = object.metadata;
  await client.patch(
    type,
    { name, namespace, subresource: 'status' },
    JSON.stringify({
      apiVersion: apiVersionOf(type),
      kind: type.kind,
      metadata: { name, namespace },
      status: { conditions: [condition] },
    }),
    contentTypes.apply,
    { fieldManager: STATUS_FIELD_MANAGER, force: true, signal: options.signal },
  );
  // Upstream's status patcher names the event after the transition (<Type>Added, <Type>Changed); a False
  // condition is a Warning so `kubectl get events --field-selector type=Warning` shows what needs attention.
  void options.recorder?.record(
    { apiVersion: apiVersionOf(type), kind: type.kind, namespace, name, uid: object.metadata.uid },
    {
      type: condition.status === 'False' ? 'Warning' : 'Normal',
      reason: `${condition.type}${change === 'added' ? 'Added' : 'Changed'}`,
      action: 'StatusChange',
      note: condition.message,
    },
  );
  return { change, condition };
}
