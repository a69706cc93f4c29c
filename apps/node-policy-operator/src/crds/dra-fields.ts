import { DRIVER_NAME, MANAGED_BY_VALUE } from '@sriov-dra/contract';

/**
 * Set on a policy CRD whose spec.dra this project wrote (crds/*.yaml carries it, `crds apply` adds it with
 * the field). It lets a later release replace its own earlier spec.dra, and keeps it from overwriting a
 * spec.dra another project declares.
 */
export const DRA_SCHEMA_ANNOTATION = `${DRIVER_NAME}/dra-schema`;
export const DRA_SCHEMA_OWNER = MANAGED_BY_VALUE;

/** The field the operator reads from policies; pruned, every policy would read as having no DRA block. */
export const DRA_FIELD = ['spec', 'dra'] as const;

/**
 * Where the operator reports DRAConfigurationReady. Upstream's policy status declares nothing, which would
 * prune the conditions; an upstream status that declares its own conditions is kept as it is.
 */
export const CONDITIONS_FIELD = ['status', 'conditions'] as const;

export const fieldName = (path: readonly string[]): string => path.join('.');
