import { DEVICE_ATTRIBUTES_KIND, DRIVER_API_VERSION, attributeKeys } from '@sriov-dra/contract';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE } from './generated-labels.ts';

/**
 * The per-resourceName pool of a policy without spec.dra, as the upstream operator's DRA integration
 * generates it: one DeviceAttributes named `<pool>-attrs` carrying only the compatibility resourceName,
 * selected by configs through the resource-pool label. Per-policy objects never carry that label, so a pool
 * selector cannot merge a managed rail into a legacy pool.
 */
export const RESOURCE_POOL_LABEL = 'sriovnetwork.openshift.io/resource-pool';

/** Upstream's resourceNameToDeviceClassName: `_` to `-`, lower case, only [a-z0-9-], trimmed of `-`, "sriov" if empty. */
export function poolName(resourceName: string): string {
  // ASCII letters only are lowered, as upstream does rune by rune; everything else outside [a-z0-9-] goes.
  const kept = resourceName
    .replaceAll('_', '-')
    .replace(/[A-Z]/g, (char) => char.toLowerCase())
    .replace(/[^a-z0-9-]/gu, '');
  const trimmed = kept.replace(/^-+|-+$/g, '');
  return trimmed === '' ? 'sriov' : trimmed;
}

/** `<prefix>/<resourceName>`, or the bare name with no prefix (upstream's buildExtendedResourceName). */
export function extendedResourceName(prefix: string, resourceName: string): string {
  return prefix === '' ? resourceName : `${prefix}/${resourceName}`;
}

export function buildPoolDeviceAttributes(input: {
  readonly namespace: string;
  readonly resourcePrefix: string;
  readonly resourceName: string;
}): Record<string, unknown> {
  const pool = poolName(input.resourceName);
  return {
    apiVersion: DRIVER_API_VERSION,
    kind: DEVICE_ATTRIBUTES_KIND,
    metadata: { name: `${pool}-attrs`, namespace: input.namespace, labels: { [GENERATED_BY_LABEL]: GENERATED_BY_VALUE, [RESOURCE_POOL_LABEL]: pool } },
    spec: { attributes: { [attributeKeys.resourceName]: { string: extendedResourceName(input.resourcePrefix, input.resourceName) } } },
  };
}
