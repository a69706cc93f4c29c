/** Labels the operator puts on the objects it generates (§12.2.4). */
export const GENERATED_BY_LABEL = 'sriovnetwork.openshift.io/generated-by';
export const GENERATED_BY_VALUE = 'sriov-network-operator';
export const NODE_POLICY_UID_LABEL = 'sriovnetwork.openshift.io/node-policy-uid';
