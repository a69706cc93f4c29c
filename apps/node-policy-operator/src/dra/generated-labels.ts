import { createHash } from 'node:crypto';
import { isLabelValue } from '@sriov-dra/contract';

/** Labels the operator puts on the objects it generates (§12.2.4). */
export const GENERATED_BY_LABEL = 'sriovnetwork.openshift.io/generated-by';
export const GENERATED_BY_VALUE = 'sriov-network-operator';
export const NODE_POLICY_UID_LABEL = 'sriovnetwork.openshift.io/node-policy-uid';
/** Upstream's label naming the node of a generated SriovResourcePolicy (whose name is the node's). */
export const NODE_LABEL = 'sriovnetwork.openshift.io/node';

/**
 * The NODE_LABEL value for a node: its name, as upstream writes it, when that is a label value. A node name
 * may be a 253-character DNS subdomain and a label value holds 63, so a longer name becomes its first 40
 * characters and 16 hex digits of its SHA-256 — deterministic, distinct per name, and still recognisable.
 * Nothing selects by it: the operator finds its SriovResourcePolicies by name, the driver by nodeSelector.
 */
export function nodeLabelValue(nodeName: string): string {
  if (isLabelValue(nodeName)) return nodeName;
  return `${nodeName.slice(0, 40)}-${createHash('sha256').update(nodeName).digest('hex').slice(0, 16)}`;
}
