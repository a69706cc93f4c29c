import type { DeviceAttributeValue } from './dra-attribute-value.ts';
import { type ObjectRef, type Result, fail, ok } from './errors.ts';
import { draLimits, isDns1123Label, isDns1123Subdomain, utf8Length } from './formats.ts';
import { attributeKeys } from './keys.ts';
import { messageValue } from './message-value.ts';

/**
 * A per-device source-template reference (§5.1). `namespace: null` is the symbolic "namespace of the
 * consuming Pod": it is resolved only in NodePrepare, once the Pod is verified, never from the namespace
 * of a policy, a DeviceAttributes object or the driver.
 */
export interface NadReference {
  readonly name: string;
  readonly namespace: string | null;
}

/**
 * Reads the netAttachDefName/netAttachDefNamespace pair from a device's attributes, keyed by qualified
 * name (see qualifiedAttributeName). Returns `null` when
 * neither key is present (ordinary custom metadata; the VfConfig fallback stays available). A malformed
 * pair is an error, never a silent fallback.
 */
export function nadReferenceFromAttributes(attributes: Readonly<Record<string, DeviceAttributeValue>>, object?: ObjectRef): Result<NadReference | null> {
  const nameValue = attributes[attributeKeys.netAttachDefName];
  const namespaceValue = attributes[attributeKeys.netAttachDefNamespace];
  if (nameValue === undefined && namespaceValue === undefined) return ok(null);
  if (nameValue === undefined) {
    return fail('InvalidNetAttachDefReference', `${attributeKeys.netAttachDefNamespace} is set without ${attributeKeys.netAttachDefName}`, { object });
  }
  const name = nameValue.string;
  if (name === undefined) return fail('InvalidNetAttachDefReference', `${attributeKeys.netAttachDefName} must be a string attribute`, { object });
  if (name === '') return fail('InvalidNetAttachDefReference', `${attributeKeys.netAttachDefName} is empty`, { object });
  if (utf8Length(name) > draLimits.stringValueMaxLength || !isDns1123Subdomain(name)) {
    return fail(
      'InvalidNetAttachDefReference',
      `${attributeKeys.netAttachDefName} ${messageValue(name)} is not a NAD name of at most ${draLimits.stringValueMaxLength} characters`,
      { object },
    );
  }
  if (namespaceValue === undefined) return ok({ name, namespace: null });
  const namespace = namespaceValue.string;
  if (namespace === undefined) return fail('InvalidNetAttachDefReference', `${attributeKeys.netAttachDefNamespace} must be a string attribute`, { object });
  if (namespace === '') return ok({ name, namespace: null });
  if (!isDns1123Label(namespace)) {
    return fail('InvalidNetAttachDefReference', `${attributeKeys.netAttachDefNamespace} ${messageValue(namespace)} is not a namespace name`, { object });
  }
  return ok({ name, namespace });
}
