import { type DeviceAttributeValue, type ObjectRef, type Result, fail, nadReferenceFromAttributes, ok } from '@sriov-dra/contract';
import type { EffectiveVfConfig } from '../config/vf-config-layering.ts';

/** A concrete source template: both parts nonempty, the namespace resolved against the verified Pod. */
export interface SourceReference {
  readonly namespace: string;
  readonly name: string;
}

export interface NetworkTemplateInput {
  /**
   * The allocated device's authoritative attributes by qualified name, from the snapshot taken at the
   * first managed prepare (§5.2 step 2) — never re-read for a binding that already has a plan.
   */
  readonly deviceAttributes: Readonly<Record<string, DeviceAttributeValue>>;
  /** The effective VfConfig of the request that allocated the device (§5.2 step 1). */
  readonly vfConfig: Pick<EffectiveVfConfig, 'netAttachDefName' | 'netAttachDefNamespace'>;
  /** Namespace of the verified consuming Pod: the only namespace an omitted or empty one can mean. */
  readonly podNamespace: string;
  /** The allocation result the template is for, named in every rejection. */
  readonly object?: ObjectRef;
}

const describeReference = (reference: SourceReference): string => `${reference.namespace}/${reference.name}`;

/**
 * Which source NAD an allocated device is bound to (§5.2 steps 3–5). The per-device reference wins
 * the choice, but not an argument: an explicit VfConfig reference must name the same concrete pair,
 * since a tenant's claim cannot override the physical mapping. A malformed per-device reference is an
 * error, never a reason to fall back to the VfConfig. Each reference brings its own namespace, and an
 * omitted or empty one becomes the Pod's here, once: the result is frozen into the plan and never
 * re-defaulted, and a name is never combined with another source's namespace. Pure; the caller
 * reads the source with the driver's normal API authorization.
 */
export function resolveNetworkTemplate(input: NetworkTemplateInput): Result<SourceReference> {
  const { object, podNamespace } = input;
  const attribute = nadReferenceFromAttributes(input.deviceAttributes, object);
  if (!attribute.ok) return attribute;

  const { netAttachDefName, netAttachDefNamespace } = input.vfConfig;
  if (netAttachDefName === '' && netAttachDefNamespace !== '') {
    // Layering lets a namespace move an earlier name; with no name at all it would silently mean nothing.
    return fail('InvalidVfConfig', `netAttachDefNamespace ${netAttachDefNamespace} is set without netAttachDefName`, {
      object,
      remedy: 'set netAttachDefName in the same or an earlier VfConfig, or remove netAttachDefNamespace; a namespace alone is not a template reference',
    });
  }
  const fromVfConfig: SourceReference | null =
    netAttachDefName === '' ? null : { namespace: netAttachDefNamespace === '' ? podNamespace : netAttachDefNamespace, name: netAttachDefName };

  if (attribute.value !== null) {
    const fromDevice: SourceReference = { namespace: attribute.value.namespace ?? podNamespace, name: attribute.value.name };
    if (fromVfConfig !== null && (fromVfConfig.namespace !== fromDevice.namespace || fromVfConfig.name !== fromDevice.name)) {
      return fail(
        'ConflictingNetAttachDefReference',
        `the device attributes select ${describeReference(fromDevice)} but the VfConfig selects ${describeReference(fromVfConfig)}`,
        { object },
      );
    }
    return ok(fromDevice);
  }
  if (fromVfConfig !== null) return ok(fromVfConfig);
  return fail('MissingNetworkTemplate', 'neither the device attributes nor the VfConfig name a NAD template', { object });
}
