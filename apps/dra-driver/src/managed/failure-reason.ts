import { isSriovDraError } from '@sriov-dra/contract';
import { isHostOperationError } from '../device/host-operation-error.ts';

/**
 * The stable code a managed failure is counted and evented by: the typed error's own code, API and
 * host errors included; anything untyped is a defect of this driver, counted as Internal. Bounded,
 * so it can label a metric.
 */
export function failureReason(error: unknown): string {
  if (isSriovDraError(error) || isHostOperationError(error)) return error.code;
  return 'Internal';
}
