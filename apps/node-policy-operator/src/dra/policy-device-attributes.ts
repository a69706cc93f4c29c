import { DEVICE_ATTRIBUTES_KIND, DRIVER_API_VERSION, type DeviceAttributeValue, type ValidatedNodePolicyDra, attributeKeys } from '@sriov-dra/contract';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE, NODE_POLICY_UID_LABEL } from './generated-labels.ts';

/** The source NAD a referenced SriovNetwork renders to, once resolved and found ready (§12.2.3). */
export interface ResolvedSourceNad {
  readonly name: string;
  readonly namespace: string;
}

export interface PolicyDeviceAttributesInput {
  readonly policyUID: string;
  /** Namespace of the operator and driver policy objects. */
  readonly namespace: string;
  readonly dra: ValidatedNodePolicyDra;
  /** `<prefix>/<resourceName>` compatibility value, always generated. */
  readonly resourceName: string;
  /** Present exactly when the policy references a SriovNetwork that resolved to a ready NAD. */
  readonly sourceNad: ResolvedSourceNad | null;
}

/** Deterministic per-policy name: recreating the policy yields a different object (§12.2.4). */
export function policyDeviceAttributesName(policyUID: string): string {
  return `dra-policy-${policyUID}-attrs`;
}

/**
 * The complete desired DeviceAttributes of one policy: compatibility resourceName, the validated custom
 * attributes and, when resolved, the NAD pair — one object, so the pair is never split or half-published.
 * No resource-pool label: that would merge every rail of a shared pool into one map.
 */
export function buildPolicyDeviceAttributes(input: PolicyDeviceAttributesInput): Record<string, unknown> {
  const attributes: Record<string, DeviceAttributeValue> = {
    [attributeKeys.resourceName]: { string: input.resourceName },
    ...input.dra.customAttributes,
  };
  if (input.sourceNad !== null) {
    attributes[attributeKeys.netAttachDefName] = { string: input.sourceNad.name };
    attributes[attributeKeys.netAttachDefNamespace] = { string: input.sourceNad.namespace };
  }
  return {
    apiVersion: DRIVER_API_VERSION,
    kind: DEVICE_ATTRIBUTES_KIND,
    metadata: {
      name: policyDeviceAttributesName(input.policyUID),
      namespace: input.namespace,
      labels: { [GENERATED_BY_LABEL]: GENERATED_BY_VALUE, [NODE_POLICY_UID_LABEL]: input.policyUID },
    },
    spec: { attributes },
  };
}
