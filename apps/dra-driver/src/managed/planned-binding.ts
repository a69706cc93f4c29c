import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';

/**
 * A managed binding record as far as it is known before any hardware or API write: everything but the
 * phase, which the forward sequence sets to Pending when it persists the record, and the shadow's UID,
 * which only the API server assigns (§6.3, §8.1).
 */
export type PlannedBinding = Omit<ManagedBinding, 'phase' | 'shadow'> & { readonly shadow: Omit<ManagedBinding['shadow'], 'uid'> };
